/**
 * Human log lines for a terminal (`npm run up` ended in raw JSON): pino writes its
 * JSON line to this destination, which prints `12:45:01 INFO  message  key=value …`, the level
 * coloured. A few lines of code instead of a pino-pretty dependency.
 */
import type { DestinationStream } from 'pino';

/** How the daemon writes its log. */
export type LogFormat = 'auto' | 'pretty' | 'json';

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '90'], 20: ['DEBUG', '36'], 30: ['INFO ', '32'], 40: ['WARN ', '33'], 50: ['ERROR', '31'], 60: ['FATAL', '35'],
};
/** Fields every line has, not repeated after the message. */
const OMIT = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

/** Whether `format` means pretty lines on an output that `isTTY` (or not). */
export function wantsPretty(format: LogFormat, isTTY: boolean | undefined): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY === true);
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** One pino JSON line as a readable line (the line itself when it is not JSON). */
export function prettyLine(json: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const [name, code] = LEVELS[Number(entry.level)] ?? ['LOG  ', '0'];
  const time = typeof entry.time === 'number' ? new Date(entry.time).toTimeString().slice(0, 8) : '';
  const fields = Object.entries(entry)
    .filter(([k]) => !OMIT.has(k))
    .map(([k, v]) => `${k}=${valueText(v)}`)
    .join(' ');
  const paint = (c: string, s: string) => (color ? `\u001b[${c}m${s}\u001b[0m` : s);
  return `${paint('2', time)} ${paint(code, name)} ${String(entry.msg ?? '')}${fields ? `  ${paint('2', fields)}` : ''}`;
}

/** A pino destination writing readable lines to `out`. */
export function prettyDestination(out: { write(text: string): unknown }, color: boolean): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line, color) + '\n') };
}
