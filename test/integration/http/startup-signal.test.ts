/**
 * stockscreend's entry point: SIGINT/SIGTERM are handled from the moment the daemon starts
 * starting, so a signal while it is still connecting (Redis unreachable, a job worker on)
 * shuts it down gracefully instead of being lost or killing it mid-way.
 */
import { EventEmitter, once } from 'node:events';
import { rm } from 'node:fs/promises';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../daemon/main.js';
import { testPrefix } from '../../helpers/test-daemon.js';
import { freshStoreSettings } from '../../helpers/test-store.js';

describe('stockscreend main()', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('shuts down gracefully on a SIGTERM that arrives while it is still starting', async () => {
    // Given a daemon starting against an unreachable Redis with a job worker on
    const store = await freshStoreSettings('main-signal');
    dirs.push(store.data_dir);
    const port = await freePort();
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
    const signals = new EventEmitter();
    const env = {
      STOCKSCREEN_JWT_SECRET: 'main-signal-secret-0123456789abcdef0123456789',
      STOCKSCREEN_FEED: 'off',
      ...(store.database_url ? { STOCKSCREEN_DATABASE_URL: store.database_url, STOCKSCREEN_DATABASE_SCHEMA: store.database_schema } : {}),
    };
    const argv = ['node', 'stockscreend', '--port', String(port), '--data-dir', store.data_dir, '--redis-url', `redis://127.0.0.1:${await freePort()}`,
      '--redis-prefix', testPrefix('main-signal'), '--workers', '1', '--log-level', 'silent'];
    const exit = main(argv, env, signals);
    // When SIGTERM arrives before start() has finished
    expect(signals.listenerCount('SIGTERM')).toBe(1);
    signals.emit('SIGTERM');
    // Then main resolves with 0 after closing, says why, leaves no listener and no open port
    expect(await exit).toBe(0);
    expect(stderr.join('')).toContain('SIGTERM received while starting; shutting down');
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT')).toBe(0);
    await expect(connects(port)).resolves.toBe(false);
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true))).once('error', () => resolve(false));
  });
}
