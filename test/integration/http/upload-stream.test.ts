/**
 * POST /admin/uploads streams to disk. A 200 MB file generated on the fly is
 * uploaded to a daemon running in its own process; the daemon's resident memory (VmRSS,
 * sampled from /proc while the upload runs) never grows by 50 MB, and the recorded size
 * and sha256 match what was sent. Also: a body past upload_max_bytes is refused with 413
 * and leaves nothing behind (on a daemon whose limit is a few MB: what is tested is the limit,
 * not its size, and streaming 257 MB to disk only to have it refused cost up to 40 s).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemonProcess, stopAllDaemonProcesses, type DaemonProcess } from '../../helpers/daemon-processes.js';
import { deleteKeys, startTestDaemon, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { freshStoreSettings } from '../../helpers/test-store.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const MB = 2 ** 20;
const SIZE = 200 * MB;
const LINE = Buffer.from('2026-03-20,005930,199400,202000,202500,199000,35279762,7019725077866\n');

/** `size` bytes of quote-like lines, made as they are read; `hash()` is their sha256 once read. */
function generated(size: number): { stream: Readable; hash(): string } {
  const sha = createHash('sha256');
  const chunk = Buffer.concat(Array.from({ length: Math.ceil(MB / LINE.length) }, () => LINE)).subarray(0, MB);
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
      sent += part.length;
      sha.update(part);
      this.push(part);
    },
  });
  return { stream, hash: () => sha.digest('hex') };
}

/** Resident memory of a process, in bytes (Linux /proc). */
async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

describe.skipIf(!existsSync('/proc/self/status'))('streaming uploads', () => {
  const prefix = testPrefix('upload');
  let configDir: string;
  let dataDir: string;
  let daemon: DaemonProcess;
  let token: string;
  const upload = (body: Readable | string, name: string) => fetch(`${daemon.url}/api/v1/admin/uploads?name=${name}`, {
    method: 'POST', body: typeof body === 'string' ? body : (Readable.toWeb(body) as ReadableStream), duplex: 'half',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
  } as RequestInit);

  beforeAll(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'upload-cfg-'));
    const store = await freshStoreSettings('upload');
    dataDir = store.data_dir;
    daemon = await startDaemonProcess('upload-daemon', configDir, {
      ...store, host: '127.0.0.1', port: 0, redis_url: testRedisUrl(), redis_prefix: prefix, workers: 0, feed: 'off', log_level: 'info',
      jwt_secret: 'test-secret-test-secret-test-secret-0123456789', admin_email: ADMIN.email, admin_password: ADMIN.password,
      rate_limit: { enabled: false }, upload_max_bytes: 256 * MB,
    });
    const res = await fetch(`${daemon.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    token = ((await res.json()) as { access_token: string }).access_token;
  }, 60_000);
  afterAll(async () => {
    await stopAllDaemonProcesses();
    await deleteKeys(testRedisUrl(), prefix);
    await rm(configDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes a 200 MB file without the daemon\'s memory growing by 50 MB, recording its size and sha256', async () => {
    // Given the daemon's resident memory at rest
    const before = await rss(daemon.pid);
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rss(daemon.pid));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // When a 200 MB file is streamed to it
    const file = generated(SIZE);
    const started = performance.now();
    const res = await upload(file.stream, 'big.csv');
    const body = (await res.json()) as { data: { id: string; size: number; sha256: string } };
    const seconds = (performance.now() - started) / 1000;
    sampling = false;
    await sampler;
    // Then it recorded exactly what was sent, and its memory stayed flat
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.data).toMatchObject({ size: SIZE, sha256: file.hash() });
    expect(peak - before, `RSS ${(before / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB`).toBeLessThan(50 * MB);
    console.info(`upload: ${SIZE / MB} MB in ${seconds.toFixed(2)} s = ${(SIZE / MB / seconds).toFixed(0)} MB/s; daemon RSS ${(before / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB`);
  }, 180_000);

  it('refuses a body past upload_max_bytes with 413, keeping nothing of it', async () => {
    // Given a daemon taking uploads of up to 4 MB, holding one accepted upload
    const limited = await startTestDaemon('upload-limit', { admin_email: ADMIN.email, admin_password: ADMIN.password, upload_max_bytes: 4 * MB });
    try {
      const login = await limited.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
      const admin = ((await login.json()) as { access_token: string }).access_token;
      const send = (body: Readable, name: string) => fetch(`${limited.url}/api/v1/admin/uploads?name=${name}`, {
        method: 'POST', body: Readable.toWeb(body) as ReadableStream, duplex: 'half',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream' },
      } as RequestInit);
      expect((await send(generated(MB).stream, 'small.csv')).status).toBe(201);
      const before = await readdir(join(limited.dataDir, 'uploads'));
      // When a streamed body (no length declared) goes past the limit
      const res = await send(generated(5 * MB).stream, 'too-big.csv').catch(() => null);
      // Then the daemon answers 413 and closes the connection (the client may see the close first)
      if (res) expect(res.status).toBe(413);
      expect(await readdir(join(limited.dataDir, 'uploads'))).toEqual(before);
    } finally {
      await limited.close();
    }
  }, 120_000);
});
