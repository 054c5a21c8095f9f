/** Reading the daemon's log file: the last lines, following appended bytes, and a readable form of pino lines. */
import { createReadStream, watch } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { readStream } from '../../io.js';

/**
 * The last `count` lines of a file starting at byte `from` (all lines when count is undefined).
 * Resolves '' when the file does not exist.
 */
export async function readLogLines(file: string, options: { from?: number; count?: number } = {}): Promise<string[]> {
  let text: string;
  try {
    text = await readStream(createReadStream(file, { start: options.from ?? 0 }));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return options.count === undefined ? lines : lines.slice(-options.count);
}

/** Size of a file, 0 when absent. */
export async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

/**
 * Call `onText` with whatever is appended to `file` after byte `from`, until `signal` aborts.
 * @throws when the file cannot be watched or read
 */
export function followFile(file: string, from: number, onText: (text: string) => void, signal: AbortSignal): Promise<void> {
  let position = from;
  const drain = async () => {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      if (size < position) position = 0; // truncated or rotated
      if (size === position) return;
      const buffer = Buffer.alloc(size - position);
      await handle.read(buffer, 0, buffer.length, position);
      position = size;
      onText(buffer.toString('utf8'));
    } finally {
      await handle.close();
    }
  };
  return new Promise<void>((resolve, reject) => {
    // Watch before the first read, so nothing appended in between is missed.
    const watcher = watch(file);
    let chain = Promise.resolve();
    const stop = (err?: unknown) => {
      watcher.close();
      signal.removeEventListener('abort', onAbort);
      chain.then(() => (err ? reject(err) : resolve()), reject);
    };
    const onAbort = () => stop();
    const schedule = () => {
      chain = chain.then(drain).catch((err: unknown) => stop(err));
    };
    watcher.on('change', schedule);
    watcher.on('error', (err) => stop(err));
    signal.addEventListener('abort', onAbort, { once: true });
    schedule();
    if (signal.aborted) stop();
  });
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** A pino JSON line as `time LEVEL message`; other lines unchanged. */
export function formatLogLine(line: string): string {
  let entry: { time?: unknown; level?: unknown; msg?: unknown };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.msg !== 'string') return line;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : '';
  const level = typeof entry.level === 'number' ? (LEVELS[entry.level] ?? String(entry.level)) : '';
  return [time, level.padEnd(5), entry.msg].filter(Boolean).join(' ');
}

/** The URL from the daemon's "listening" log line, if present in `lines`. */
export function listeningUrl(lines: string[]): string | undefined {
  for (const line of lines) {
    try {
      const entry = JSON.parse(line) as { url?: unknown; msg?: unknown };
      if (typeof entry.url === 'string' && typeof entry.msg === 'string' && entry.msg.includes('listening')) return entry.url;
    } catch {
      // not a pino line
    }
  }
  return undefined;
}
