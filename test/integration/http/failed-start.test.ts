/**
 * A stockscreend process whose start fails part way (after it has opened the database
 * and connected to Redis) says why and exits with 1, instead of hanging on the
 * connections it had opened. Runs the compiled daemon (`npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';

const ROOT = join(import.meta.dirname, '../../..');

describe('stockscreend failing to start', () => {
  const dirs: string[] = [];
  const prefix = testPrefix('failed-start');
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/daemon/main.js'))) throw new Error('dist/daemon/main.js is missing: run `npm run build` first (npm test does it)');
  });
  afterEach(async () => {
    await deleteKeys(testRedisUrl(), prefix);
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('closes what it opened and exits 1 when the JWT secret cannot be read', async () => {
    // Given a data dir whose jwt-secret is a directory (unreadable as a secret), a reachable
    // Redis and a job worker: the failure comes after the database and Redis are open
    const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-failed-start-'));
    dirs.push(dataDir);
    await mkdir(join(dataDir, 'jwt-secret'));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dataDir, STOCKSCREEN_FEED: 'off', STOCKSCREEN_LOG_LEVEL: 'silent' };
    // When the daemon is started
    const child = spawn(process.execPath, [join(ROOT, 'bin/stockscreend'), '--port', '0', '--data-dir', dataDir, '--redis-url', testRedisUrl(), '--redis-prefix', prefix, '--workers', '1'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Then the process ends by itself with exit code 1 and one line saying why
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toMatch(/stockscreend: cannot start: .*EISDIR/);
  });
});
