/**
 * CSV export of a screen (`Accept: text/csv` or `format=csv` streams all
 * matches): rows are built and written a chunk at a time, and the writer waits
 * for `drain` whenever the socket's buffer is full, so a slow client holds at
 * most one chunk in memory instead of the whole market.
 */
import type { ScreenMatches } from '../../screening/engine/query.js';

/** Rows per written chunk (~50 KB of CSV on a full-width export). */
export const CSV_CHUNK_ROWS = 500;

/** The part of a writable stream (an HTTP response) the writer uses. */
export interface ChunkSink {
  write(chunk: string): boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  readonly destroyed: boolean;
}

/** One CSV cell: empty for null, quoted when it holds a comma, quote or line break. */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The header line, then one chunk of CRLF-terminated lines per `rowsPerChunk` matches; built lazily. */
export function* csvChunks(matches: ScreenMatches, rowsPerChunk = CSV_CHUNK_ROWS): Generator<string> {
  const { columns } = matches;
  yield `${columns.map(csvCell).join(',')}\r\n`;
  for (const items of matches.chunks(rowsPerChunk)) {
    yield items.map((item) => columns.map((c) => csvCell(item[c])).join(',')).join('\r\n') + '\r\n';
  }
}

/**
 * Writes `chunks` to `sink`, pulling the next chunk only when the sink has room
 * (waits for `drain` after a write returns false). Resolves true when every chunk
 * was written, false when the sink closed first (client gone): the rest is never built.
 */
export async function writeChunks(sink: ChunkSink, chunks: Iterable<string>): Promise<boolean> {
  for (const chunk of chunks) {
    if (sink.destroyed) return false;
    if (!sink.write(chunk) && !(await drained(sink))) return false;
  }
  return !sink.destroyed;
}

/** Resolves true on `drain`, false on `close` (at once when the sink is already destroyed). */
function drained(sink: ChunkSink): Promise<boolean> {
  if (sink.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    const settle = (ok: boolean) => {
      sink.off('drain', onDrain);
      sink.off('close', onClose);
      resolve(ok);
    };
    sink.once('drain', onDrain);
    sink.once('close', onClose);
  });
}
