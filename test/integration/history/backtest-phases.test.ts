/**
 * The first backtest after a start or a load says what it is doing from the first second:
 * POST /screen/backtest does not wait for the market history the daemon has not read yet (it
 * answers the run queued in phase `reading_history`), and the worker reports each phase —
 * reading the history, building the series, screening — as a progress event of the job, in that
 * order, before the first rebalance date is screened. A run whose dates the history then refuses
 * fails with the reason. On each storage backend, through the daemon's own routes and queue.
 */
import { QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBacktestService, type BacktestService } from '../../../daemon/backtest/backtest-service.js';
import { signalDays } from '../../../daemon/backtest/calendar.js';
import { tradingDaysBetween } from '../../../daemon/kernel/krx-calendar.js';
import { BacktestRequest } from '../../../daemon/contract/backtests.js';
import { createBacktestsRepo, type BacktestsRepo } from '../../../daemon/store/backtests-repo.js';
import { applyGeneratedMarket } from '../../helpers/backtest-market.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const DATES = tradingDaysBetween('2025-01-02', '2025-04-30');

interface Progress { phase: string; done: number; total: number }

describe('backtest phases before the first screened date', () => {
  let t: TestDaemon;
  let token: string;
  let events: QueueEvents;
  const progress = new Map<string, Progress[]>();
  const completed = new Map<string, () => void>();
  const post = (json: unknown) => t.request('/api/v1/screen/backtest', { method: 'POST', json, token });
  const get = async (id: string) => ((await (await t.request(`/api/v1/screen/backtests/${id}`, { token })).json()) as { data: any }).data;

  /** Make the daemon's market history stale: a new data version, read again on the next as-of request. */
  const newDataVersion = (dates: readonly string[]) => applyGeneratedMarket(t.daemon, dates);

  beforeAll(async () => {
    // Given a daemon that never waits for the history before answering, and has not read it
    t = await startTestDaemon('backtest-phases', { backtest_plan_wait_ms: 0, backtest_slice_dates: 0 });
    await newDataVersion(DATES);
    token = (await t.login()).access_token;
    const { jobs, redis } = t.daemon.context();
    events = new QueueEvents(jobs.backtest.queue.name, { connection: redis.factory.connect('bullmq', 'test-events'), prefix: `${redis.factory.prefix}bull` });
    events.on('progress', ({ jobId, data }) => {
      const list = progress.get(jobId) ?? [];
      list.push(data as Progress);
      progress.set(jobId, list);
    });
    events.on('completed', ({ jobId }) => completed.get(jobId)?.());
    await events.waitUntilReady();
  }, 60_000);
  afterAll(async () => {
    await events?.close();
    await t?.close();
  });

  it('answers at once in phase reading_history, then reports reading, building and screening in order before the first date', async () => {
    // When the first backtest is asked for
    const res = await post({ query: { sort: 'close:desc' }, from: DATES[0], rebalance: 'weekly', top: 3 });
    // Then the answer does not wait for the history: the run is queued, reading it, its dates not known yet
    expect(res.status).toBe(202);
    const run = ((await res.json()) as { data: any }).data;
    expect(run).toMatchObject({ status: 'queued', phase: 'reading_history', done: 0, total: 0 });
    expect(['queued', 'running']).toContain((await get(run.id)).status);

    // And once its job completes, its progress events came in phase order before any date was screened
    await new Promise<void>((resolve) => {
      completed.set(run.id, resolve);
      // It may have completed before the listener was set.
      void get(run.id).then((r) => r.status === 'completed' && resolve());
    });
    const final = await get(run.id);
    expect(final).toMatchObject({ status: 'completed', phase: null });
    expect(final.total).toBeGreaterThan(6);
    const seen = progress.get(run.id)!;
    const firstScreened = seen.findIndex((p) => p.done >= 1);
    expect(firstScreened).toBeGreaterThan(0);
    expect(seen.slice(0, firstScreened).map((p) => p.phase)).toEqual(['reading_history', 'building_series', 'screening']);
    expect(seen.slice(0, firstScreened).every((p) => p.done === 0 && p.total === final.total)).toBe(true);
    expect(seen.at(-1)).toEqual({ phase: 'screening', done: final.total, total: final.total });
  });

  it('fails a run accepted before the history was read when the history refuses its dates, saying why', async () => {
    // Given new data, so the history is to be read again
    await newDataVersion(tradingDaysBetween('2025-05-02', '2025-05-09'));
    // When a run starts before the first loaded date
    const res = await post({ query: { sort: 'close:desc' }, from: '2024-06-03', rebalance: 'monthly', top: 3 });
    expect(res.status).toBe(202);
    const run = ((await res.json()) as { data: any }).data;
    expect(run).toMatchObject({ status: 'queued', phase: 'reading_history' });
    // Then it fails once the history is in, naming the field and the first loaded date (polled: no job is ever queued)
    let found = run;
    await expect.poll(async () => (found = await get(run.id)).status, { timeout: 25_000, interval: 50 }).not.toBe('queued');
    expect(found).toMatchObject({ status: 'failed', phase: null });
    expect(found.error).toMatch(/from: must be on or after 2025-01-02/);
  });

  it('still refuses at once what needs no history: an unknown template', async () => {
    await newDataVersion(tradingDaysBetween('2025-05-12', '2025-05-16'));
    const unknown = await post({ template: 'no-such-template', from: DATES[0], rebalance: 'weekly' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error.details).toHaveProperty('template');
    const listed = ((await (await t.request('/api/v1/screen/backtests', { token })).json()) as { data: unknown[] }).data;
    expect(listed).toHaveLength(2);
  });
});

describe('a run over its budget on a daemon that has not read the history', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // Given a tier budget no run fits, and a history not read yet
    t = await startTestDaemon('backtest-phases-budget', { backtest_plan_wait_ms: 0, screen_limits: { free: { backtest_units: 1 } } } as never);
    await applyGeneratedMarket(t.daemon, DATES);
  }, 60_000);
  afterAll(() => t?.close());

  it('is still refused with 400, counting the real rebalance dates of the loaded history', async () => {
    const { access_token } = await t.login();
    const res = await t.request('/api/v1/screen/backtest', { method: 'POST', token: access_token, json: { query: { sort: 'close:desc' }, from: DATES[0], rebalance: 'weekly', top: 3 } });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error.details.limit).toBe('backtest_units');
    expect(body.error.details.cost.dates).toBe(signalDays(DATES, 0, DATES.length - 1, 'weekly').length);
    // Nothing was stored
    expect(((await (await t.request('/api/v1/screen/backtests', { token: access_token })).json()) as any).data).toEqual([]);
  });
});

describe('the answer to a run accepted before the history was read', () => {
  let t: TestDaemon;
  let service: BacktestService | undefined;
  beforeAll(async () => {
    t = await startTestDaemon('backtest-phases-answer');
    await applyGeneratedMarket(t.daemon, DATES);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await t?.close();
  });

  it('is the run as accepted, reading_history with no total, even when its planning lands before the answer is read', async () => {
    // Given the daemon's backtest parts, with reads of a run that answer only once the history is
    // in and whatever the run's planning wrote by then has landed: the widest the window between
    // accepting a run and reading it back can be (a small market is read at once, and the store
    // orders a read and a write on different connections as it likes)
    const ctx = t.daemon.context();
    const { asOf, screens } = ctx.screening;
    const repo = createBacktestsRepo(ctx.store.db);
    const writes = new Map<string, Promise<unknown>>();
    const noted = <T>(id: string, write: Promise<T>) => (writes.set(id, write), write);
    const widened: BacktestsRepo = {
      ...repo,
      planned: (id, total) => noted(id, repo.planned(id, total)),
      finish: (id, outcome) => noted(id, repo.finish(id, outcome)),
      async get(userId, id) {
        await asOf.history().catch(() => undefined);
        // A turn of the event loop: what the history's readers do next without I/O is done by then.
        await new Promise((resolve) => setImmediate(resolve));
        await writes.get(id);
        return repo.get(userId, id);
      },
    };
    service = createBacktestService({ asOf, repo: widened, parseScreen: (body, caller) => screens.parse(body, caller), presetQuery: async () => undefined, riskFreeRate: 0.03, planWaitMs: 0 });
    const owner = { id: (await t.login()).id, tier: 'free' as const };
    expect(asOf.historyRead()).toBe(false);

    // When a run of more dates than are answered directly is asked for
    const run = await service.start(owner, BacktestRequest.parse({ query: { sort: 'close:desc' }, from: DATES[0], rebalance: 'weekly', top: 3 }));

    // Then the answer is the run as it was accepted; the run is planned afterwards
    expect(run).toMatchObject({ status: 'queued', phase: 'reading_history', done: 0, total: 0 });
    await expect.poll(async () => (await repo.get(owner.id, run.id))?.total, { timeout: 25_000, interval: 50 }).toBe(signalDays(DATES, 0, DATES.length - 1, 'weekly').length);
  });
});
