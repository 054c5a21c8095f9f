/**
 * Build apart from listen: buildDaemon wires every part and opens storage
 * and Redis but serves nothing; listen() starts serving; close() stops it and is idempotent.
 * A snapshot version announced by another process (a worker) reaches the listening daemon.
 */
import { createServer } from 'node:net';
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../daemon/config.js';
import { buildDaemon, type BuiltDaemon } from '../../../daemon/daemon.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { SNAPSHOT_CHANNEL } from '../../../daemon/wiring/snapshot-version.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { freshStoreSettings } from '../../helpers/test-store.js';

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** True when something accepts HTTP on the port. */
async function serving(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/health`).then(() => true, () => false);
}

describe('buildDaemon', () => {
  const prefix = testPrefix('build-listen');
  let built: BuiltDaemon | undefined;
  let dataDir = '';
  afterEach(async () => {
    await built?.close();
    await deleteKeys(testRedisUrl(), prefix);
    await rm(dataDir, { recursive: true, force: true });
  });

  async function build(port: number): Promise<BuiltDaemon> {
    const store = await freshStoreSettings('build-listen');
    dataDir = store.data_dir;
    const config = parseConfig({
      host: '127.0.0.1', port, redis_url: testRedisUrl(), redis_prefix: prefix, log_level: 'silent', ...store,
      jwt_secret: 'test-secret-test-secret-test-secret-0123456789', workers: 0, feed: 'off', rate_limit: { enabled: false },
    });
    return buildDaemon(config, { logger: createLogger('silent') });
  }

  it('wires every part without serving, serves after listen(), and stops on close()', async () => {
    // Given a daemon built on a free port
    const port = await freePort();
    built = await build(port);
    // Then its parts exist and answer (the database is open) but nothing listens yet
    expect(await built.context.store.stocks.count()).toBe(0);
    expect(await serving(port)).toBe(false);
    // When it listens
    const address = await built.listen();
    // Then it serves on that port
    expect(address.port).toBe(port);
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
    // And after close (twice: idempotent) it no longer does
    await Promise.all([built.close(), built.close()]);
    expect(await serving(port)).toBe(false);
  });

  it('applies a snapshot version another process announces', async () => {
    // Given a listening daemon whose snapshot has the empty database's version
    built = await build(0);
    await built.listen();
    const before = built.context.screening.snapshot.current().version;
    // When a worker announces a version (here: the notifier of the same deployment)
    const refreshed = new Promise<void>((resolve) => {
      const original = built!.context.screening.snapshot.refresh.bind(built!.context.screening.snapshot);
      built!.context.screening.snapshot.refresh = async (version) => {
        const snap = await original(version);
        if (version === 'v-announced') resolve();
        return snap;
      };
    });
    await built.context.redis.notifier.ready();
    await built.context.redis.notifier.publish(SNAPSHOT_CHANNEL, 'v-announced');
    // Then the daemon asks its snapshot service for it
    await refreshed;
    expect(before).toMatch(/^none:/);
  });
});
