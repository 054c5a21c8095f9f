/**
 * The FDR cache source's daily run and staleness by the daemon's clock: the cache holds a day's
 * final file the same evening, so a run at 19:00 KST fetches that day; a run the next morning
 * finds nothing new and makes no call; a missed evening makes the data stale once the calendar
 * says the next day should be in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceStatus } from '../../../daemon/contract/sources.js';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { runDailySync } from '../../helpers/source-sync-harness.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { startFakeFdr, type FakeFdr } from '../../fakes/fdr-cache-server.js';

const ADMIN = { admin_email: 'ops@example.com', admin_password: 'ops-password-1' };
const kst = (date: string, hhmm: string) => Date.parse(`${date}T${hhmm}:00+09:00`);

describe('FDR cache daily run', () => {
  let fake: FakeFdr;
  let t: TestDaemon;
  const clock = createManualClock(kst('2026-03-12', '19:00'));

  beforeAll(async () => {
    fake = await startFakeFdr();
    t = await startTestDaemon('fdr-schedule', { workers: 1, ...ADMIN, fdr_cache_url: fake.url, fdr_min_interval_ms: 0, source_retry_base_ms: 5 }, { clock });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const runDaily = () => runDailySync(t, 'fdr');
  /** The status as an admin sees it (logged in at the clock's time: the clock jumps days). */
  async function status(): Promise<SourceStatus> {
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: ADMIN.admin_email, password: ADMIN.admin_password } });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    return ((await (await t.request('/api/v1/admin/sources', { token })).json()) as { data: SourceStatus[] }).data.find((s) => s.name === 'fdr')!;
  }

  it('is a job scheduler at 19:00 Asia/Seoul', async () => {
    const schedulers = await t.daemon.context().jobs.market.queue.getJobSchedulers();
    expect(schedulers.find((s) => s.key === 'source-daily:fdr')).toMatchObject({ pattern: '0 19 * * *', tz: 'Asia/Seoul' });
  });

  it('fetches the same day in the evening, nothing the next morning, and is stale after a missed evening', async () => {
    // At 19:00 KST on 03-12 the day's file is final: the run fetches 03-12
    expect((await runDaily()).sync).toMatchObject({ from: '2026-03-12', to: '2026-03-12', loaded: 1, calls: 3 });
    // The next morning nothing new is published: no call, and the data is not stale
    clock.set(kst('2026-03-13', '10:00'));
    const before = fake.calls.length;
    expect((await runDaily()).sync).toMatchObject({ total: 0, loaded: 0 });
    expect(fake.calls.length).toBe(before);
    expect(await status()).toMatchObject({ configured: true, stale: false, last_success_date: '2026-03-12' });
    // Monday night, with the evenings of Friday and Monday missed: stale, and /health says so
    clock.set(kst('2026-03-16', '23:30'));
    const s = await status();
    expect(s).toMatchObject({ stale: true });
    expect(s.stale_reason).toMatch(/latest data 2026-03-12, expected 2026-03-16/);
    const health = (await (await t.request('/health')).json()) as { status: string; reasons: string[] };
    expect(health.reasons.some((r) => /source fdr stale/.test(r))).toBe(true);
    // The next run catches up on both dates, weekend skipped
    expect((await runDaily()).sync).toMatchObject({ from: '2026-03-13', to: '2026-03-16', total: 2, loaded: 2 });
    expect((await status()).stale).toBe(false);
  });
});
