/**
 * The account cache in front of the users repository, with two "daemons" (each its
 * own cache and notifier) on one database and one Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCachedUsersRepo, USER_CHANGED_CHANNEL } from '../../../daemon/auth/cached-users.js';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { createNotifier, type Notifier } from '../../../daemon/infra/notifier.js';
import { closeRedis, createRedisFactory, waitReady } from '../../../daemon/infra/redis.js';
import { createUsersRepo } from '../../../daemon/store/users-repo.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { openTestDb, type TestDb } from '../../helpers/test-store.js';

describe('cached account rows', () => {
  const prefix = testPrefix('cached-users');
  const logger = createLogger('silent');
  const clock = createManualClock(Date.UTC(2026, 10, 22));
  let t: TestDb;
  const closers: (() => Promise<unknown>)[] = [];

  async function daemonNotifier(): Promise<Notifier> {
    const redis = createRedisFactory({ url: testRedisUrl(), prefix, logger });
    const commands = redis.connect('command', 'cached-users-test');
    await waitReady(commands, 5000);
    const notifier = createNotifier(redis, commands, logger);
    closers.push(() => notifier.close(), () => closeRedis(commands));
    return notifier;
  }

  beforeAll(async () => {
    t = await openTestDb('cached-users');
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await t?.close();
    await deleteKeys(testRedisUrl(), prefix);
  });

  it('serves a row from memory for the TTL, then reads it again', async () => {
    const repo = createUsersRepo(t.db);
    const cached = createCachedUsersRepo(repo, { notifier: await daemonNotifier(), clock, ttlMs: 5000 });
    const user = await repo.create({ email: 'ttl@example.com', name: null, password_hash: 'x' });
    expect((await cached.findById(user.id))?.tier).toBe('free');
    // A change made behind the cache's back (another tool writing the database)…
    await repo.update(user.id, { tier: 'pro' });
    expect((await cached.findById(user.id))?.tier).toBe('free');
    // …is seen once the TTL has passed.
    clock.advance(5001);
    expect((await cached.findById(user.id))?.tier).toBe('pro');
  });

  it('shows a change made through one daemon to the other at once (pub/sub eviction)', async () => {
    const repo = createUsersRepo(t.db);
    const [na, nb] = [await daemonNotifier(), await daemonNotifier()];
    const a = createCachedUsersRepo(repo, { notifier: na, clock, ttlMs: 60_000 });
    const b = createCachedUsersRepo(repo, { notifier: nb, clock, ttlMs: 60_000 });
    const user = await repo.create({ email: 'evict@example.com', name: null, password_hash: 'x' });
    expect((await b.findById(user.id))?.role).toBe('user');
    // B's eviction handler was registered first, so when this one runs B has evicted.
    const delivered = new Promise<string>((resolve) => nb.subscribe(USER_CHANGED_CHANNEL, resolve));
    await nb.ready();
    await a.update(user.id, { role: 'admin', tier: 'enterprise' });
    expect(await delivered).toBe(user.id);
    expect(await b.findById(user.id)).toMatchObject({ role: 'admin', tier: 'enterprise' });
  });
});
