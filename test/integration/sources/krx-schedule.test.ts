/**
 * The KRX source's daily run: one BullMQ job scheduler however many daemons register it, and a
 * run that fetches only the published dates not stored yet (by the trading calendar and the
 * daemon's clock): the first run yesterday's date, a run after a holiday-free gap the dates
 * missed, a run with nothing new no call at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { scheduledRunData } from '../../../daemon/wiring/sources.js';
import { waitForDelayed, waitForJob } from '../../helpers/jobs.js';
import { runDailySync } from '../../helpers/source-sync-harness.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { startFakeKrx, type FakeKrx } from '../../fakes/krx-openapi-server.js';

const KEY = 's'.repeat(40);
/** 09:00 KST of a date, as epoch ms. */
const kst9 = (date: string) => Date.parse(`${date}T09:00:00+09:00`);

describe('KRX daily run', () => {
  let fake: FakeKrx;
  let a: TestDaemon;
  let b: TestDaemon;
  const clock = createManualClock(kst9('2026-03-12'));

  beforeAll(async () => {
    fake = await startFakeKrx({ keys: { [KEY]: '*' } });
    const config = { krx_api_url: fake.url, krx_api_key: KEY, krx_min_interval_ms: 0, source_retry_base_ms: 5 };
    a = await startTestDaemon('krx-schedule', { ...config, workers: 1 }, { clock });
    // A second daemon on the same database and Redis registers the same schedule.
    b = await startTestDaemon('krx-schedule', { ...config, workers: 0, data_dir: a.store.data_dir, database_url: a.store.database_url, database_schema: a.store.database_schema, redis_prefix: a.prefix }, { clock });
  });
  afterAll(async () => {
    await b.daemon.close();
    await a.close();
    await fake.close();
  });

  const runDaily = () => runDailySync(a, 'krx');

  it('is one job scheduler (Asia/Seoul cron) for both daemons', async () => {
    const schedulers = await a.daemon.context().jobs.market.queue.getJobSchedulers();
    expect(schedulers.filter((s) => s.key === 'source-daily:krx')).toHaveLength(1);
    expect(schedulers.find((s) => s.key === 'source-daily:krx')).toMatchObject({ pattern: '30 8 * * *', tz: 'Asia/Seoul' });
  });

  it('fetches the last published date first, then only the dates it missed, and nothing when nothing is new', async () => {
    // On 03-12 at 09:00 KST the last published date is 03-11: the first run fetches it alone
    const first = await runDaily();
    expect(first.sync).toMatchObject({ from: '2026-03-11', to: '2026-03-11', loaded: 1, calls: 4 });
    // On Saturday 03-14 the runs of 03-13 were missed: 03-12 and 03-13 are fetched
    clock.set(kst9('2026-03-14'));
    const second = await runDaily();
    expect(second.sync).toMatchObject({ from: '2026-03-12', to: '2026-03-13', total: 2, loaded: 2 });
    // On Sunday nothing new is published: no call at all
    clock.set(kst9('2026-03-15'));
    const before = fake.calls.length;
    const third = await runDaily();
    expect(third.sync).toMatchObject({ total: 0, loaded: 0, calls: 0 });
    expect(fake.calls.length).toBe(before);
    // And the source is not stale: its latest date is what the calendar expects
    const status = (await a.daemon.context().sources.registry.statuses()).find((s) => s.name === 'krx');
    expect(status).toMatchObject({ last_success_date: '2026-03-13', stale: false });
  }, 180_000); // each run computes indicators over the whole market (slow on a shared PostgreSQL)

  it('waits for the next KST day when the day\'s call budget is used up', async () => {
    // Given today's count already at the budget
    const ctx = a.daemon.context();
    await ctx.sources.status.countCalls('krx', 10_000);
    clock.set(kst9('2026-03-17'));
    await ctx.sources.status.countCalls('krx', 10_000);
    const job = await ctx.jobs.market.queue.add('source-sync', scheduledRunData('krx'));
    // Then the job is delayed to the next KST day, having made no call
    const before = fake.calls.length;
    await waitForDelayed(a.daemon, String(job.id));
    const delayed = await ctx.jobs.market.queue.getJob(String(job.id));
    // Until one minute past midnight KST of 03-18
    expect((delayed?.progress as { waiting_until?: string }).waiting_until).toBe('2026-03-17T15:01:00.000Z');
    expect(fake.calls.length).toBe(before);
    expect((await ctx.sources.registry.statuses()).find((s) => s.name === 'krx')?.last_error?.code).toBe('QUOTA');
    await delayed?.remove();
  });
});
