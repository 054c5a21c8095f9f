/**
 * `load --wait` survives a busy Redis. The test's own Redis is paused for writes
 * (CLIENT PAUSE 800 ms) again and again while the CLI follows a sample load; the CLI
 * waits the hiccups out and exits 0 with the right totals.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { startPrivateRedis, type PrivateRedis } from '../../helpers/redis-server.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const bin = inject('redisServerBin');

describe.skipIf(!bin)('following a job through Redis hiccups', () => {
  let redis: PrivateRedis;
  let admin: Redis;
  let t: TestDaemon;
  let e: TempEnv;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });

  beforeAll(async () => {
    redis = await startPrivateRedis(bin!);
    admin = new Redis(redis.url);
    t = await startTestDaemon('wait-hiccups', { workers: 1, redis_url: redis.url, admin_email: ADMIN.email, admin_password: ADMIN.password });
    e = await tempEnv();
    expect((await cli(['login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }))).code).toBe(0);
  });
  afterAll(async () => {
    admin?.disconnect();
    await t?.close();
    await redis?.stop();
    await e?.cleanup();
  });

  it('load sample --wait exits 0 with the right totals while Redis pauses 800 ms out of every 1.1 s', async () => {
    // Given Redis paused for writes 800 ms at a time, again and again, for as long as the CLI runs
    let pauses = 0;
    let running = true;
    const hiccups = (async () => {
      while (running) {
        await admin.call('CLIENT', 'PAUSE', '800', 'WRITE');
        pauses += 1;
        await new Promise((r) => setTimeout(r, 1100));
      }
    })();
    // When a sample load is followed to its end
    let outcome: Awaited<ReturnType<typeof cli>>;
    try {
      outcome = await cli(['load', 'sample', '--seed', '5', '--stocks', '40', '--days', '120', '--wait']);
    } finally {
      running = false;
      await hiccups;
    }
    const { code, io } = outcome;
    // Then it exits 0 with the completed job's totals
    expect(code, io.err()).toBe(0);
    const [id, type, state, phase, rowsOk, rejected, indicators] = io.out().trimEnd().split('\t');
    expect([type, state, phase, rejected]).toEqual(['load-sample', 'completed', 'done', '0']);
    expect(indicators).toMatch(/^40 stocks \(version /);
    const job = await t.daemon.context().jobs.market.get(id!);
    expect(Number(rowsOk)).toBe(job.result!.rows_ok);
    expect(job.result!.rows_ok).toBeGreaterThan(40 * 110);
    // And the hiccups did happen while it ran, and the CLI said it was waiting them out
    expect(pauses).toBeGreaterThan(1);
    expect(io.err()).toMatch(/daemon busy, retrying in \d s/);
  }, 180_000);
});
