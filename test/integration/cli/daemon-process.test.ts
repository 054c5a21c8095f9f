/**
 * `stockscreen daemon start|status|logs|stop` with a REAL stockscreend process. Needs the
 * compiled daemon (`npm test` builds first; for a single run: `npm run build`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { run } from '../../../cli/main.js';
import { isDaemonAlive, readPid } from '../../../cli/services/daemon/daemon-state.js';
import { resolvePaths } from '../../../cli/services/session/paths.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { freshStoreSettings, testBackend } from '../../helpers/test-store.js';
import { fakeIO, tempEnv, type TempEnv } from './fake-io.js';

const LAUNCHER = join(import.meta.dirname, '../../../bin/stockscreend');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

describe('daemon start|status|logs|stop as a real process', () => {
  let e: TempEnv;
  let port: number;
  const prefix = testPrefix('cli-daemon');
  const redisUrl = testRedisUrl();
  const cli = async (argv: string[]) => {
    const io = fakeIO();
    return { code: await run(argv, io, e.env), io };
  };

  beforeAll(() => {
    if (!existsSync(join(import.meta.dirname, '../../../dist/daemon/main.js'))) {
      throw new Error('dist/daemon/main.js is missing: run `npm run build` first (npm test does it)');
    }
  });

  beforeEach(async () => {
    // Own state dir per test; no jobs or price feed: this is about the process lifecycle.
    e = await tempEnv({ STOCKSCREEN_REDIS_PREFIX: prefix, STOCKSCREEN_WORKERS: '0', STOCKSCREEN_FEED: 'off' });
    port = await freePort();
  });

  // Never leave a daemon behind, whatever the test did.
  afterEach(async () => {
    const pid = readPid(resolvePaths(e.env));
    if (pid !== undefined && isDaemonAlive(pid)) process.kill(pid, 'SIGKILL');
    await deleteKeys(redisUrl, prefix);
    await e.cleanup();
  });

  it('starts, reports health, refuses a second start, shows logs, and stops gracefully', async () => {
    // When the daemon is started on a free port (on PostgreSQL in the postgres pass)
    const store = await freshStoreSettings('cli-daemon');
    const database = store.database_url ? ['--database-url', store.database_url, '--database-schema', store.database_schema!] : [];
    const start = await cli(['daemon', 'start', '--port', String(port), '--redis-url', redisUrl, ...database]);
    // Then the URL is the only thing on stdout, and a pid file names a live process
    expect(start.io.err()).not.toContain('error:');
    expect(start.code).toBe(0);
    const url = `http://127.0.0.1:${port}`;
    expect(start.io.out()).toBe(`${url}\n`);
    const pid = readPid(resolvePaths(e.env));
    expect(pid).toBeDefined();
    expect(isDaemonAlive(pid!)).toBe(true);

    // status: daemon, database and redis all up (piped rows), exit 0, found without --url
    const status = await cli(['daemon', 'status']);
    expect(status.code).toBe(0);
    expect(status.io.out()).toBe('daemon\thealthy\t/health\ndatabase\tconnected\t/health/db\nredis\tconnected\t/health/redis\n');
    const json = JSON.parse((await cli(['--json', 'daemon', 'status'])).io.out());
    expect(json['/health/db']).toMatchObject({ status: 'healthy', database: 'connected' });

    // A second start while the first runs says so and succeeds (not an error)
    const again = await cli(['daemon', 'start', '--port', String(port), '--redis-url', redisUrl]);
    expect(again.code).toBe(0);
    expect(again.io.err()).toContain(`already running (pid ${pid}`);

    // logs: the daemon's own lines (raw JSON when piped)
    const logs = await cli(['daemon', 'logs']);
    expect(logs.code).toBe(0);
    expect(logs.io.out()).toContain(`"msg":"stockscreend listening on ${url}"`);
    // …including where its data lives: the sqlite file, or PostgreSQL without the password
    const opened = logs.io.out().split('\n').find((l) => l.includes('"msg":"database open"'));
    expect(opened).toContain(testBackend() === 'postgres' ? `"database":"postgres://` : '"database":"/');
    if (store.database_schema) expect(opened).toContain(`(schema ${store.database_schema})`);

    // stop: SIGTERM and wait; the process is gone, the pid file removed, status says down
    const stop = await cli(['daemon', 'stop']);
    expect(stop.io.err()).not.toContain('error:');
    expect(stop.code).toBe(0);
    expect(isDaemonAlive(pid!)).toBe(false);
    expect(readPid(resolvePaths(e.env))).toBeUndefined();
    const down = await cli(['--url', url, 'daemon', 'status']);
    expect(down.code).toBe(1);
    expect(down.io.err()).toContain(`cannot reach stockscreend at ${url}`);
    await rm(store.data_dir, { recursive: true, force: true });
  });

  it('fails with the tail of the log when the daemon exits during start', async () => {
    // A Redis URL the daemon's config validation rejects makes it exit 1 at once
    const res = await cli(['daemon', 'start', '--port', String(port), '--redis-url', 'http://not-redis']);
    expect(res.code).toBe(1);
    expect(res.io.err()).toMatch(/^error: stockscreend exited with code 1; last lines of .*stockscreend\.log: \(DAEMON\)$/m);
    expect(res.io.err()).toContain('redis_url: must be a redis:// or rediss:// URL');
    expect(readPid(resolvePaths(e.env))).toBeUndefined();
  });

  /** Start stockscreend in the foreground as `npm run up` does (`node bin/stockscreend`, output on a pipe). */
  function foreground(args: string[], store: { data_dir: string; database_url?: string; database_schema?: string }): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const env: NodeJS.ProcessEnv = { ...process.env, ...e.env, STOCKSCREEN_REDIS_URL: redisUrl, STOCKSCREEN_LOG_FORMAT: 'json' };
    for (const [k, v] of Object.entries(store)) if (v !== undefined) env[`STOCKSCREEN_${k.toUpperCase()}`] = v;
    const child = spawn(process.execPath, [LAUNCHER, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    return { child, output: () => output, exited: new Promise((r) => child.once('exit', (code) => r(code))) };
  }

  it('agrees about a daemon started in the foreground (npm run up): status shows it, logs say where they go, stop stops it', async () => {
    // Given stockscreend started the way `npm run up` starts it, its output on a terminal/pipe
    const store = await freshStoreSettings('cli-daemon-fg');
    const url = `http://127.0.0.1:${port}`;
    const up = foreground(['--port', String(port)], store);
    try {
      await vi.waitFor(async () => expect((await cli(['--url', url, 'daemon', 'status'])).code).toBe(0), { timeout: 20_000, interval: 100 });
      // When its status is asked: healthy, with its pid and where its log goes
      const status = await cli(['--url', url, 'daemon', 'status']);
      expect(status.io.err()).toContain(`${url} (pid ${up.child.pid}; log on the terminal it was started from): healthy`);
      // And `daemon start` there finds it (nothing to start) and names its process
      const start = await cli(['daemon', 'start', '--port', String(port)]);
      expect(start.code).toBe(0);
      expect(start.io.err()).toContain(`a healthy stockscreend already answers at ${url} (pid ${up.child.pid}): nothing to start`);
      // And `daemon logs` says where the log is instead of pointing at a file it never wrote
      const logs = await cli(['--url', url, 'daemon', 'logs']);
      expect(logs.code).toBe(1);
      expect(logs.io.err()).toContain(`stockscreend at ${url} (pid ${up.child.pid}) writes its log to the terminal it was started from`);
      // When it is stopped: it shuts down gracefully (exit 0) and its record is gone
      const stop = await cli(['--url', url, 'daemon', 'stop']);
      expect(stop.code, stop.io.err()).toBe(0);
      expect(stop.io.err()).toContain(`Stopped stockscreend (pid ${up.child.pid}) at ${url}`);
      expect(await up.exited).toBe(0);
      expect(existsSync(join(resolvePaths(e.env).stateDir, 'daemons', `127.0.0.1_${port}.json`))).toBe(false);
      const again = await cli(['--url', url, 'daemon', 'stop']);
      expect(again.io.err()).toContain(`stockscreend is not running at ${url}`);
    } finally {
      up.child.kill('SIGKILL');
      await rm(store.data_dir, { recursive: true, force: true });
    }
  });

  it('says which flag to use when the port is taken, and survives a closed pipe on --help', async () => {
    // Given the port held by another program
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(port, '127.0.0.1', () => r()));
    const store = await freshStoreSettings('cli-daemon-port');
    try {
      const taken = foreground(['--port', String(port)], store);
      expect(await taken.exited).toBe(1);
      expect(taken.output()).toContain(`stockscreend: cannot start: port ${port} on 127.0.0.1 is in use`);
      expect(taken.output()).toContain('pick another with --port <n> (STOCKSCREEN_PORT), or --port 0 for any free port');
    } finally {
      holder.close();
      await rm(store.data_dir, { recursive: true, force: true });
    }
    // And `stockscreend --help | head -2`: the reader goes away after its first bytes, the daemon exits 0 quietly
    const help = spawn(process.execPath, [LAUNCHER, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    help.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    help.stdout!.once('data', () => help.stdout!.destroy());
    const code = await new Promise<number | null>((r) => help.once('exit', (c) => r(c)));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });
});
