/**
 * Writers never wait for a market load, and a write that must wait for the database is refused
 * after a bounded time instead of hanging.
 *
 * 1. A `stockscreend worker` process runs a sample load and is frozen in the middle of it: on
 *    the job's progress event (rows written, nothing published) the test pauses the worker's
 *    Redis for writes, so the worker stops at its next progress report. While it is stopped, a
 *    daemon on the same database answers a registration, a login and a preset save, and the
 *    database still shows none of the load, and /health of a daemon on the worker's queue reports
 *    the load and its progress; once the worker runs on, the load completes whole.
 *    (Were a load one long transaction, the stopped worker would hold sqlite's writer and every
 *    one of these writes would wait for it.)
 * 2. With the database's writer (sqlite) or its only connection (PostgreSQL) held, a preset save
 *    answers 503 `SERVICE_UNAVAILABLE` with Retry-After after `database_wait_ms`, then succeeds
 *    once the database is free again.
 */
import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type MarketJobs } from '../../../daemon/jobs/market-jobs.js';
import { jobRequestSchema, type JobProgress } from '../../../daemon/jobs/types.js';
import { startDaemonProcess, stopAllDaemonProcesses } from '../../helpers/daemon-processes.js';
import { waitForJobAt } from '../../helpers/jobs.js';
import { openMarketQueueFixture, type MarketQueueFixture } from '../../helpers/market-queue-fixture.js';
import { type PrivateRedis } from '../../helpers/redis-server.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { testBackend, type TestDb } from '../../helpers/test-store.js';

const bin = inject('redisServerBin');

const count = async (store: TestDb, table: string) => Number((await store.db.get<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${table}`))?.n ?? 0);

describe.skipIf(!bin)(`writes during a market load (${testBackend()})`, () => {
  const prefix = 'writes-load:';
  let redis: PrivateRedis;
  let admin: Redis;
  let events: QueueEvents;
  let fixture: MarketQueueFixture | undefined;
  let jobs: MarketJobs;
  let store: TestDb;
  let configDir: string;
  let api: TestDaemon;
  /** A daemon on the worker's Redis and queue: its /health shows the worker's load. */
  let observer: TestDaemon;

  beforeAll(async () => {
    ({ redis, admin, store, configDir, jobs, events } = fixture = await openMarketQueueFixture(bin!, 'writes-load', prefix));
    // The API daemon shares the database, not the worker's Redis (pausing that one stops only the worker).
    api = await startTestDaemon('writes-load', { ...store.settings, database_wait_ms: 1000 });
    observer = await startTestDaemon('writes-load-observer', { ...store.settings, redis_url: redis.url, redis_prefix: prefix });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await observer?.close();
    await fixture?.close();
  });

  it('answers a registration, a login and a preset save while a load is stopped half-way, and the load then completes whole', async () => {
    // Given a user, and a worker loading a sample market
    const user = await api.login();
    await startDaemonProcess('worker', configDir, { ...store.settings, redis_url: redis.url, redis_prefix: prefix, log_level: 'info', workers: 1 }, { worker: true });
    const id = (await jobs.enqueue(jobRequestSchema.parse({ type: 'load-sample', seed: 3, stocks: 200, days: 60 }), null)).id;

    // When the worker is stopped at its next progress report after writing rows of the load
    await new Promise<void>((resolve) => {
      const onProgress = ({ jobId, data }: { jobId: string; data: unknown }) => {
        const p = data as JobProgress;
        if (jobId !== id || p.phase !== 'load' || p.rows_ok === 0) return;
        events.off('progress', onProgress);
        void admin.call('CLIENT', 'PAUSE', '60000', 'WRITE').then(() => resolve());
      };
      events.on('progress', onProgress);
    });
    // (the worker reports once more before it stops: it is then between two batches of the load)

    // Then writes of every kind are answered meanwhile
    const email = `new-${randomUUID().slice(0, 8)}@example.com`;
    const register = await api.request('/api/v1/auth/register', { method: 'POST', json: { email, password: 'correct horse battery' } });
    expect(register.status).toBe(201);
    const login = await api.request('/api/v1/auth/login', { method: 'POST', json: { email: user.email, password: 'correct horse battery' } });
    expect(login.status).toBe(200);
    const preset = await api.request('/api/v1/screen/presets', { method: 'POST', token: user.access_token, json: { name: 'cheap', query: { expression: 'per < 10' } } });
    expect(preset.status).toBe(201);
    // And nothing of the load is visible yet
    expect(await count(store, 'stocks')).toBe(0);
    expect(await count(store, 'daily_prices')).toBe(0);
    // And /health tells that a load is running, how far it is (it reads the queue, which the pause does not stop)
    const health = (await (await observer.request('/health')).json()) as any;
    expect(health).toMatchObject({ status: 'healthy', market_load: { type: 'load-sample', phase: 'load' } });
    expect(health.market_load.rows_ok).toBeGreaterThan(0);

    // When the worker runs on, the load completes, all of it visible at once
    await admin.call('CLIENT', 'UNPAUSE');
    const result = (await waitForJobAt(redis.url, prefix, id, 120_000)) as { indicators: { stocks: number } };
    expect(result.indicators.stocks).toBe(200);
    expect(await count(store, 'stocks')).toBe(200);
    expect(await count(store, 'stock_indicators')).toBe(200);
    await stopAllDaemonProcesses();
  }, 180_000);

  it('refuses a write with 503 and Retry-After after database_wait_ms when the database stays busy, then accepts it', async () => {
    // Given a daemon that waits at most 300 ms for the database, with one PostgreSQL connection at most
    const t = await startTestDaemon('writes-wait', { database_wait_ms: 300, database_pool_size: 1 });
    try {
      const user = await t.login();
      const save = () => t.request('/api/v1/screen/presets', { method: 'POST', token: user.access_token, json: { name: `p-${randomUUID().slice(0, 6)}`, query: { expression: 'per < 10' } } });
      // When something holds the database's writer (its only connection)
      let release!: () => void;
      let holding!: () => void;
      const held = new Promise<void>((r) => (holding = r));
      const hold = t.daemon.context().store.db.transaction(async () => {
        holding();
        await new Promise<void>((r) => (release = r));
      });
      await held;
      // Then a write is refused in the spec's envelope, saying when to come back
      const refused = await save();
      release();
      await hold;
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await refused.json()) as any;
      expect(body).toMatchObject({ status: 'error', error: { code: 'SERVICE_UNAVAILABLE' }, meta: { request_id: expect.any(String) } });
      // And once the database is free, the same write succeeds
      expect((await save()).status).toBe(201);
    } finally {
      await t.close();
    }
  }, 60_000);
});
