/**
 * `stockscreen export`: GET /admin/export (the whole market as NDJSON, the format
 * `stockscreen load` reads back) streamed to <dir>/market-<date>.ndjson. The answer is
 * written to a temporary file first and renamed at the end, so an interrupted export
 * never leaves a truncated file under the final name.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { API_PREFIX } from '../transport/api-client.js';
import { streamRequest } from '../transport/raw-request.js';
import type { Session } from '../session/session.js';

/** What an export wrote. */
export interface ExportOutcome {
  file: string;
  lines: number;
  bytes: number;
}

/** Local calendar date as YYYY-MM-DD. */
export function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * Stream the market export into `dir` (created when missing; relative to `cwd`).
 * @throws CliError FORBIDDEN for a non-admin, the fs error when the file cannot be written
 */
export async function exportMarket(session: Session, dir: string, cwd: string, now = new Date()): Promise<ExportOutcome> {
  const target = resolve(cwd, dir);
  await mkdir(target, { recursive: true });
  const file = join(target, `market-${localDate(now)}.ndjson`);
  const partial = `${file}.partial-${process.pid}`;
  const res = await streamRequest(session, { path: `${API_PREFIX}/admin/export`, accept: 'application/x-ndjson' });
  let lines = 0;
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      done(null, chunk);
    },
  });
  try {
    await pipeline(res.body, count, createWriteStream(partial));
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { file, lines, bytes };
}
