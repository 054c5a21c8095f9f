/**
 * Where and how results are printed: results to stdout, everything
 * else to stderr; `--json` prints exactly what the API returned; piped output is
 * tab-separated rows without colour; a TTY gets the Ink views (injected renderers).
 */
import type { CliOutput } from '../../io.js';

/** How results are printed. */
export type OutputMode = 'json' | 'tty' | 'plain';

/** A cell with an optional tone (rendered as colour on a TTY when colour is on). */
export interface Cell {
  text: string;
  tone?: 'good' | 'bad' | 'muted';
}

/** Anything a command may put in a cell. */
export type CellInput = string | number | boolean | null | undefined | Cell;

/** Rows under headers (one row per item). */
export interface TableData {
  headers: string[];
  rows: CellInput[][];
}

/** One item as label/value pairs. */
export interface RecordData {
  fields: [label: string, value: CellInput][];
}

/** Options a renderer gets. */
export interface RenderOptions {
  color: boolean;
  columns: number;
}

/** Turns tables and records into terminal text (the Ink views; see ui/render.tsx). */
export interface Renderers {
  table(data: TableData, options: RenderOptions): string;
  record(data: RecordData, options: RenderOptions): string;
}

/** The printer commands use. */
export interface Output {
  readonly mode: OutputMode;
  readonly color: boolean;
  /** Print a list: the API body in json mode, TSV rows when piped, a table on a TTY. */
  table(apiBody: unknown, data: TableData): void;
  /** Print one item: the API body in json mode, one TSV row when piped, label/value lines on a TTY. */
  record(apiBody: unknown, data: RecordData): void;
  /** Print any JSON value (json mode only does this). */
  json(value: unknown): void;
  /** A plain result line on stdout (not in json mode). */
  line(text: string): void;
  /** Progress and status messages: stderr. */
  info(text: string): void;
}

/** Options of createOutput. */
export interface OutputOptions {
  json: boolean;
  color: boolean;
}

/** Pick the mode: --json wins, then TTY vs piped. */
export function outputMode(json: boolean, stdout: CliOutput): OutputMode {
  if (json) return 'json';
  return stdout.isTTY ? 'tty' : 'plain';
}

/** Normalise a cell to text and tone; null and undefined are empty. */
export function toCell(value: CellInput): Cell {
  if (value === null || value === undefined) return { text: '' };
  if (typeof value === 'object') return value;
  return { text: String(value) };
}

/** One TSV line: tabs and newlines inside values become spaces so columns stay intact. */
export function tsvLine(values: CellInput[]): string {
  return values.map((v) => toCell(v).text.replace(/[\t\r\n]+/g, ' ')).join('\t');
}

/** Serialise an API body for --json. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** Create the printer for one invocation. */
export function createOutput(io: { stdout: CliOutput; stderr: CliOutput }, options: OutputOptions, renderers: Renderers): Output {
  const mode = outputMode(options.json, io.stdout);
  // Colour only on a terminal, and never when switched off (--no-color / NO_COLOR).
  const color = options.color && mode === 'tty';
  const renderOptions = (): RenderOptions => ({ color, columns: io.stdout.columns || 100 });
  const write = (text: string) => io.stdout.write(text.endsWith('\n') ? text : text + '\n');
  return {
    mode,
    color,
    table(apiBody, data) {
      if (mode === 'json') return void io.stdout.write(jsonText(apiBody));
      if (mode === 'plain') {
        for (const row of data.rows) write(tsvLine(row));
        return;
      }
      write(renderers.table(data, renderOptions()));
      if (data.rows.length === 0) io.stderr.write('(no results)\n');
    },
    record(apiBody, data) {
      if (mode === 'json') return void io.stdout.write(jsonText(apiBody));
      if (mode === 'plain') return void write(tsvLine(data.fields.map(([, value]) => value)));
      write(renderers.record(data, renderOptions()));
    },
    json(value) {
      io.stdout.write(jsonText(value));
    },
    line(text) {
      if (mode !== 'json') write(text);
    },
    info(text) {
      io.stderr.write(text.endsWith('\n') ? text : text + '\n');
    },
  };
}
