/**
 * The OpenDART source's daily run: one BullMQ job scheduler (evening, Asia/Seoul) however many
 * daemons register it; each run covers the latest quarters of every listed company (an unchanged
 * company writes nothing); the source is stale, in its status and /health, once an evening's run
 * is missed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobResult } from '../../../daemon/contract/jobs.js';
import type { SourceStatus } from '../../../daemon/contract/sources.js';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { scheduledRunData } from '../../../daemon/wiring/sources.js';
import { startFakeDart, type FakeDart } from '../../fakes/dart-server.js';
import { dartReports, HYNIX, SAMSUNG, seedDartMarket } from '../../helpers/dart-fixtures.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const KEY = 'e'.repeat(40);
const ADMIN = { admin_email: 'ops@example.com', admin_password: 'ops-password-1' };
const kst = (date: string, time: string) => Date.parse(`${date}T${time}:00+09:00`);

describe('OpenDART daily run', () => {
  let fake: FakeDart;
  let a: TestDaemon;
  let b: TestDaemon;
  const clock = createManualClock(kst('2025-03-20', '19:30'));

  beforeAll(async () => {
    fake = await startFakeDart({ keys: [KEY], companies: [SAMSUNG, HYNIX], reports: dartReports(), now: () => clock.now() });
    const config = { ...ADMIN, dart_api_url: fake.url, dart_api_key: KEY, dart_min_interval_ms: 0, source_retry_base_ms: 5 };
    a = await startTestDaemon('dart-schedule', { ...config, workers: 1 }, { clock });
    // A second daemon on the same database and Redis registers the same schedule.
    b = await startTestDaemon('dart-schedule', { ...config, workers: 0, data_dir: a.store.data_dir, database_url: a.store.database_url, database_schema: a.store.database_schema, redis_prefix: a.prefix }, { clock });
    await seedDartMarket(a.daemon.context());
  });
  afterAll(async () => {
    await b.daemon.close();
    await a.close();
    await fake.close();
  });

  async function runDaily(): Promise<JobResult> {
    const job = await a.daemon.context().jobs.market.queue.add('source-sync', scheduledRunData('dart'));
    return (await waitForJob(a.daemon, String(job.id))) as JobResult;
  }
  /** The status as an admin sees it (logged in at the clock's time: the clock jumps days). */
  async function status(): Promise<SourceStatus> {
    const login = await a.request('/api/v1/auth/login', { method: 'POST', json: { email: ADMIN.admin_email, password: ADMIN.admin_password } });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    return ((await (await a.request('/api/v1/admin/sources', { token })).json()) as { data: SourceStatus[] }).data.find((s) => s.name === 'dart')!;
  }

  it('is one job scheduler in the evening (Asia/Seoul) for both daemons', async () => {
    const schedulers = (await a.daemon.context().jobs.market.queue.getJobSchedulers()).filter((s) => s.key === 'source-daily:dart');
    expect(schedulers).toHaveLength(1);
    expect(schedulers[0]).toMatchObject({ pattern: '30 19 * * *', tz: 'Asia/Seoul' });
  });

  it('fetches the latest quarters every evening, writes only what changed, and is stale after a missed evening', async () => {
    // The evening of 03-20: the four quarters of 2024 for both companies, each disclosure's full statement once
    expect((await runDaily()).sync).toMatchObject({ from: '2025-03-20', to: '2025-03-20', total: 2, loaded: 2, calls: 1 + 4 + 7 });
    // The next morning it is not stale
    clock.set(kst('2025-03-21', '10:00'));
    expect(await status()).toMatchObject({ configured: true, stale: false, last_success_date: '2025-03-20' });
    // The evening of 03-21: the same answers, nothing written
    // (the list and the key accounts only: no disclosure is new, so no full statement is asked for)
    clock.set(kst('2025-03-21', '19:30'));
    const secondFrom = fake.calls.length;
    expect((await runDaily()).sync).toMatchObject({ from: '2025-03-21', to: '2025-03-21', loaded: 0, unchanged: 2, calls: 1 + 4 });
    expect(fake.calls.slice(secondFrom).filter((c) => c.service === 'fnlttSinglAcntAll.json')).toEqual([]);
    // Sunday morning, the evening of 03-22 missed: stale, and /health says so
    clock.set(kst('2025-03-23', '10:00'));
    const s = await status();
    expect(s).toMatchObject({ stale: true, last_success_date: '2025-03-21' });
    expect(s.stale_reason).toMatch(/expected one on 2025-03-22/);
    const health = (await (await a.request('/health')).json()) as { status: string; reasons: string[] };
    expect(health.status).toBe('degraded');
    expect(health.reasons.join('\n')).toMatch(/source dart stale/);
  });
});
