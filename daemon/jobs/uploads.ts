/**
 * Uploaded market-data files: `stockscreen load FILE` streams each file to the
 * daemon, which keeps it under `<data_dir>/uploads/<id>/<name>` (the name as the operator
 * gave it, relative to the folder they named, so format detection and folder planning see
 * the same names as on their machine) with a `.meta.json` beside it (size, sha256). A
 * load job names uploads by id; the worker reads them from there.
 *
 * The body is piped to disk as it arrives: nothing holds more than a stream chunk in memory.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UploadInfo } from '../contract/jobs.js';
import { AppError, invalidRequest } from '../errors.js';

/** What an upload recorded (daemon/contract/jobs.ts). */
export type { UploadInfo } from '../contract/jobs.js';

const META = '.meta.json';
const NAME_RE = /^[^\0\\]{1,512}$/;

/** The uploads directory of a data directory. */
export function uploadsDir(dataDir: string): string {
  return join(dataDir, 'uploads');
}

/**
 * A safe relative name: no absolute path, no `..` or `.` segment, no empty segment, no dot-file.
 * @throws AppError INVALID_REQUEST (details.name) otherwise
 */
export function checkUploadName(name: string): string {
  const segments = name.split('/');
  const bad = !NAME_RE.test(name) || name.startsWith('/') || segments.some((s) => s === '' || s.startsWith('.'));
  if (bad || normalize(name).split(sep).join('/') !== name) {
    throw invalidRequest('invalid upload name', { name: 'a relative file name such as quotes.csv or index/kospi/2024.csv (no .., no leading /, no dot-files)' });
  }
  return name;
}

/** Counts and hashes what flows through. */
function meter(limit: number) {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(new AppError('PAYLOAD_TOO_LARGE', `upload larger than upload_max_bytes (${limit} bytes)`, { limit }));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, sha256: hash.digest('hex') }) };
}

/**
 * Stream `body` to a new upload named `name`; a failed or aborted upload leaves nothing.
 * @throws AppError INVALID_REQUEST for a bad name, PAYLOAD_TOO_LARGE past `maxBytes`; stream errors
 */
export async function saveUpload(dir: string, name: string, body: Readable, maxBytes: number): Promise<UploadInfo> {
  checkUploadName(name);
  const id = randomUUID();
  const file = join(dir, id, ...name.split('/'));
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const m = meter(maxBytes);
  try {
    await pipeline(body, m.stream, createWriteStream(file, { mode: 0o600 }));
  } catch (err) {
    await rm(join(dir, id), { recursive: true, force: true });
    throw err;
  }
  const info: UploadInfo = { id, name, ...m.result(), created_at: new Date().toISOString() };
  await writeFile(join(dir, id, META), JSON.stringify(info));
  return info;
}

/**
 * The upload `id` (a uuid, checked by the job schema) with the path of its file.
 * @throws AppError INVALID_REQUEST when there is no such upload
 */
export async function findUpload(dir: string, id: string): Promise<UploadInfo & { path: string }> {
  try {
    const info = JSON.parse(await readFile(join(dir, id, META), 'utf8')) as UploadInfo;
    return { ...info, path: join(dir, id, ...info.name.split('/')) };
  } catch {
    throw invalidRequest(`upload ${id} not found`, { upload: 'no such upload (upload the file again)' });
  }
}

/** Ids of the stored uploads. */
export async function listUploads(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/** Delete the uploads a finished job named (ids are uuids, checked by the job schema). */
export async function removeUploads(dir: string, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((id) => rm(join(dir, id), { recursive: true, force: true })));
}
