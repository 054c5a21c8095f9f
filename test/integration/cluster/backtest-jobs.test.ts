/**
 * Long backtests as queue jobs across two daemons sharing Redis and the database:
 * a run queued on one daemon is run by another and followed from both; per-user and queue
 * limits; cancel; a run whose worker dies mid-run (killed, or its daemon stopping) is finished
 * by another daemon's worker; a run the queue lost is reported failed. Small hand-built market.
 */
import { QueueEvents, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBacktestService, LOST_ERROR, type BacktestJob, type RunHooks } from '../../../daemon/backtest/backtest-service.js';
import type { DailyBar } from '../../../daemon/kernel/records.js';
import { backtestQueueName, createBacktestJobs, redisPicksCheckpoint, type BacktestJobs } from '../../../daemon/jobs/backtest-jobs.js';
import { planBacktest } from '../../../daemon/backtest/plan.js';
import { BacktestRequest } from '../../../daemon/contract/backtests.js';
import { executePlan, RunInterrupted } from '../../../daemon/backtest/run.js';
import { createAsOfService } from '../../../daemon/history/as-of-service.js';
import { createBacktestsRepo } from '../../../daemon/store/backtests-repo.js';
import { startBacktestWorker } from '../../../daemon/wiring/backtests.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { parseConfig } from '../../../daemon/config.js';
import { startWorker } from '../../../daemon/worker.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import type { DaemonContext } from '../../../daemon/daemon.js';

/** A daemon's own backtest service, queue and repository, as its part `backtests` starts its worker. */
const workerOf = (ctx: DaemonContext) => ({ service: ctx.screening.backtestService, jobs: ctx.jobs.backtest, repo: ctx.store.backtests });

const CODES = ['00000A', '00000B', '00000C'];
/** 45 weekdays from Thu 2025-01-02: 10 weekly rebalance dates, more than the 6 answered directly. */
const DATES = Array.from({ length: 63 }, (_, i) => new Date(Date.UTC(2025, 0, 2 + i)))
  .filter((d) => d.getUTCDay() % 6 !== 0).slice(0, 45).map((d) => d.toISOString().slice(0, 10));

function records() {
  const bars: DailyBar[] = CODES.flatMap((code, k) => DATES.map((trade_date, d) => {
    const close = 100 * (k + 1) + ((d * (k + 2)) % 7);
    return { stock_code: code, trade_date, open_price: close - 1, high_price: close + 1, low_price: close - 2, close_price: close, volume: 1000, trading_value: 1000 * close, market_cap: null, shares_outstanding: 1_000_000 };
  }));
  const stocks = CODES.map((code) => ({ code, name: `Stock ${code}`, market: 'KOSPI' as const, settle_month: 12 }));
  return { stocks, bars, halts: [], financials: [], index: [] };
}

const LONG = { query: { codes: CODES, sort: 'code:asc' }, from: DATES[0], rebalance: 'weekly', top: 'all' };
const data = async (res: Response) => ((await res.json()) as any).data;

describe('backtest jobs across two daemons', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let events: QueueEvents;
  let token: string;
  const victims: BacktestJobs[] = [];

  /** Resolves with the job's 'completed' event; listening starts before the run is posted. */
  const completion = (id: () => string) => new Promise<void>((resolve) => {
    events.on('completed', ({ jobId }) => jobId === id() && resolve());
  });
  const show = async (t: TestDaemon, id: string, tok = token) => data(await t.request(`/api/v1/screen/backtests/${id}`, { token: tok }));
  const post = (t: TestDaemon, json: unknown, tok = token) => t.request('/api/v1/screen/backtest', { method: 'POST', json, token: tok });

  /**
   * A worker outside both daemons running runs with daemon A's parts; `onFirstProgress` runs after
   * the first rebalance date (the worker then goes on, or never does if it returns a pending promise).
   */
  async function victim(onFirstProgress: (stop: () => Promise<void>) => Promise<void>): Promise<{ jobs: BacktestJobs; midRun: Promise<void> }> {
    const ctx = a.daemon.context();
    const jobs = createBacktestJobs({ redis: ctx.redis.factory, logger: createLogger('silent'), lockMs: 1000, queueName: backtestQueueName(ctx.core.databaseId) });
    victims.push(jobs);
    const service = createBacktestService({
      asOf: ctx.screening.asOf, parseScreen: (body, caller) => ctx.screening.screens.parse(body, caller), presetQuery: async () => undefined,
      repo: createBacktestsRepo(ctx.store.db), riskFreeRate: 0.03, queue: jobs,
    });
    let reached: () => void;
    const midRun = new Promise<void>((r) => (reached = r));
    let first = true;
    const run = (job: BacktestJob, hooks: RunHooks) => service.run(job, {
      ...hooks,
      async onProgress(done, total) {
        await hooks.onProgress?.(done, total);
        if (!first) return;
        first = false;
        reached();
        await onFirstProgress(() => service.close());
      },
    });
    await jobs.startWorker(run, async () => undefined);
    return { jobs, midRun };
  }

  beforeAll(async () => {
    const limits = { backtest_workers: 0, job_lock_ms: 1000, backtest_limits: { free: 2 }, backtest_queue_max: 3 };
    a = await startTestDaemon('bt-jobs', limits);
    b = await startTestDaemon('bt-jobs-b', { ...limits, backtest_workers: 1, redis_prefix: a.prefix, ...a.store });
    for (const ctx of [a.daemon.context()]) {
      await ctx.store.marketData.apply(records());
      const run = await ctx.store.marketData.computeIndicators();
      await ctx.screening.snapshot.refresh(run.version);
    }
    await b.daemon.context().screening.snapshot.refresh();
    const ctx = a.daemon.context();
    events = new QueueEvents(backtestQueueName(ctx.core.databaseId), { connection: ctx.redis.factory.connect('bullmq', 'test-events'), prefix: `${ctx.redis.factory.prefix}bull` });
    await events.waitUntilReady();
    token = (await a.login()).access_token;
  }, 60_000);
  afterAll(async () => {
    await events?.close();
    for (const v of victims) await v.closeWorker(true).then(() => v.close());
    await b?.daemon.close();
    await a?.close();
  });

  let reference: any;

  it('runs a run queued on one daemon on the other, showing it queued, its progress, then its result on both', async () => {
    let id = '';
    const progress: { phase: string; done: number; total: number }[] = [];
    events.on('progress', ({ jobId, data: p }) => jobId === id && progress.push(p as any));
    const completed = completion(() => id);
    const res = await post(a, LONG);
    expect(res.status).toBe(202);
    const queued = await data(res);
    id = queued.id;
    expect(queued).toMatchObject({ status: 'queued', done: 0, total: 10, result: null });
    await completed;
    const [onA, onB] = [await show(a, id), await show(b, id)];
    expect(onA).toMatchObject({ status: 'completed', done: 10, total: 10 });
    expect(onA.result.rebalances).toHaveLength(10);
    expect(onB.result).toEqual(onA.result);
    // What the run did before its first date, then each date screened
    expect(progress.filter((p) => p.done === 0).map((p) => p.phase)).toEqual(['reading_history', 'building_series', 'screening']);
    expect(progress.filter((p) => p.done > 0).map((p) => p.done)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    reference = onA.result;
  });

  it('limits queued and running runs per user and in the queue, and cancels a queued run', async () => {
    await b.daemon.context().jobs.backtest.closeWorker();
    const [r1, r2] = [await data(await post(a, LONG)), await data(await post(b, LONG))];
    const over = await post(a, LONG);
    expect(over.status).toBe(403);
    expect(((await over.json()) as any).error).toMatchObject({ code: 'FORBIDDEN', details: { tier: 'free', limit: 2, active: 2 } });
    // Cancel on the other daemon: the run leaves the queue and frees a place.
    const other = await b.login();
    expect((await b.request(`/api/v1/screen/backtests/${r1.id}`, { method: 'DELETE', token: other.access_token })).status).toBe(404);
    const cancelled = await data(await b.request(`/api/v1/screen/backtests/${r1.id}`, { method: 'DELETE', token }));
    expect(cancelled).toMatchObject({ id: r1.id, status: 'cancelled' });
    expect(await a.daemon.context().jobs.backtest.queue.getJob(r1.id)).toBeUndefined();
    expect((await b.request(`/api/v1/screen/backtests/${r1.id}`, { method: 'DELETE', token })).status).toBe(409);
    const r3 = await data(await post(a, LONG));
    expect(r3.status).toBe('queued');
    // With another user's run, three runs wait: the queue is full for everyone.
    const r4 = await data(await post(a, LONG, other.access_token));
    const full = await post(a, LONG, (await a.login()).access_token);
    expect(full.status).toBe(503);
    expect(((await full.json()) as any).error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { queued: 3, limit: 3 } });
    for (const r of [r2, r3]) await b.request(`/api/v1/screen/backtests/${r.id}`, { method: 'DELETE', token });
    await b.request(`/api/v1/screen/backtests/${r4.id}`, { method: 'DELETE', token: other.access_token });
    expect((await show(a, r2.id)).status).toBe('cancelled');
  });

  it('finishes on another daemon a run whose worker was killed mid-run', async () => {
    // Given a worker that runs one rebalance date and then never another (its process frozen, then killed)
    const { jobs, midRun } = await victim(() => new Promise<void>(() => undefined));
    let id = '';
    const stalled = new Promise<void>((resolve) => events.on('stalled', ({ jobId }) => jobId === id && resolve()));
    const completed = completion(() => id);
    id = (await data(await post(a, LONG))).id;
    await midRun;
    expect(await show(b, id)).toMatchObject({ status: 'running', done: 1, total: 10 });
    // Its first date's selection is kept for whoever takes the run over
    const picks = a.daemon.context().redis.factory.key('backtest', id, 'picks');
    expect(await a.daemon.context().redis.commands.llen(picks)).toBe(1);
    await jobs.closeWorker(true);
    // When daemon B's worker runs again: its stalled check takes the job back once the lock lapses
    await startBacktestWorker(workerOf(b.daemon.context()), 1);
    await stalled;
    await completed;
    // Then the run completed, from the start, with the same result as an uninterrupted run
    const done = await show(a, id);
    expect(done).toMatchObject({ status: 'completed', done: 10, total: 10, error: null });
    expect(done.result).toEqual(reference);
    expect(await a.daemon.context().redis.commands.exists(picks)).toBe(0);
  });

  it('resumes a run taken over after the last date it screened, to the same result', async () => {
    // Given a run stopped after 4 of its 10 dates, its selections kept in Redis
    const ctx = a.daemon.context();
    const history = await ctx.screening.asOf.history();
    const fresh = () => createAsOfService({ version: () => history.version, loadHistory: async () => history });
    const deps = { asOf: fresh(), parseScreen: (body: unknown) => ctx.screening.screens.parse(body, 'trusted'), riskFreeRate: 0.03 };
    const p = await planBacktest(deps, BacktestRequest.parse(LONG), undefined, 'free');
    const checkpoint = redisPicksCheckpoint(ctx.redis.commands, ctx.redis.factory.key('backtest', 'resume-test', 'picks'));
    let done = 0;
    const hooks = (stopAt: number) => ({ stopping: () => done >= stopAt, onProgress: async (d: number) => void (done = d), checkpoint });
    await expect(executePlan(deps.asOf, p, hooks(4))).rejects.toBeInstanceOf(RunInterrupted);
    // When another worker, with nothing cached, runs it with the same checkpoint
    const other = fresh();
    const result = await executePlan(other, p, hooks(Infinity));
    // Then it screened only the 6 dates left, and ended as an uninterrupted run
    expect(other.stats().builds).toBe(6);
    expect(JSON.parse(JSON.stringify(result))).toEqual({ ...reference, rules: { ...reference.rules, risk_free_rate: 0.03 } });
  });

  it('hands a run over to another daemon when its daemon stops mid-run', async () => {
    await b.daemon.context().jobs.backtest.closeWorker();
    // Given a worker whose daemon starts stopping after the run's first rebalance date
    const { jobs, midRun } = await victim(async (stop) => void stop());
    let id = '';
    const completed = completion(() => id);
    id = (await data(await post(a, LONG))).id;
    await midRun;
    // When another daemon's worker is there
    await startBacktestWorker(workerOf(b.daemon.context()), 1);
    await completed;
    await jobs.closeWorker();
    // Then it finished the run, with the same result as an uninterrupted run
    const done = await show(b, id);
    expect(done).toMatchObject({ status: 'completed', done: 10 });
    expect(done.result).toEqual(reference);
  });

  it('runs backtests in a `stockscreend worker` process when worker_backtests is set', async () => {
    // Given no daemon worker, and a worker process sharing Redis and the database
    await b.daemon.context().jobs.backtest.closeWorker();
    const worker = await startWorker(parseConfig({
      ...a.store, redis_url: a.daemon.context().redis.factory.url, redis_prefix: a.prefix, log_level: 'silent', workers: 0, worker_backtests: 1, job_lock_ms: 1000,
    }), createLogger('silent'));
    try {
      let id = '';
      const completed = completion(() => id);
      // When a run is queued on a daemon
      id = (await data(await post(a, LONG))).id;
      await completed;
      // Then the worker process ran it, to the same result
      expect((await show(b, id)).result).toEqual(reference);
    } finally {
      await worker.close();
    }
  });

  it('reports a run the queue failed for good, or never heard of for a minute, as failed on any daemon', async () => {
    const ctx = a.daemon.context();
    const me = await a.login();
    const repo = createBacktestsRepo(ctx.store.db);
    const [lost, fresh, failed] = ['9d1f4c8e-0000-4000-8000-000000000001', '9d1f4c8e-0000-4000-8000-000000000002', '9d1f4c8e-0000-4000-8000-000000000003'];
    for (const id of [lost, fresh, failed]) await repo.create(me.id, id, LONG, 10, 'queued');
    await ctx.store.db.run('UPDATE backtests SET created_at = ? WHERE id = ?', [new Date(Date.now() - 120_000).toISOString(), lost]);
    // A job whose last attempt failed (no daemon worker saw it fail: taken and failed by hand)
    await ctx.jobs.backtest.queue.add('backtest', { id: failed, user_id: me.id, preset_query: null }, { jobId: failed, attempts: 1 });
    const connection = ctx.redis.factory.connect('bullmq', 'test-manual');
    const manual = new Worker(backtestQueueName(ctx.core.databaseId), null, { connection, prefix: `${ctx.redis.factory.prefix}bull` });
    try {
      const job = await manual.getNextJob('test-token');
      expect(job?.id).toBe(failed);
      await job!.moveToFailed(new Error('database unreachable'), 'test-token');
    } finally {
      await manual.close();
      connection.disconnect();
    }
    expect(await show(b, lost, me.access_token)).toMatchObject({ status: 'failed', error: LOST_ERROR });
    expect(await show(b, failed, me.access_token)).toMatchObject({ status: 'failed', error: 'failed: database unreachable' });
    expect((await show(b, fresh, me.access_token)).status).toBe('queued');
  });
});
