/**
 * The price a screen alert reports, through the daemon's own wiring: a tick posted to
 * POST /admin/ticks moves a stock into a preset's top 3, and the `alert` message on the owner's
 * socket and the stored firing history carry that tick's price (the stock that left, its last
 * price). Twenty stocks, so most rows sit past the first byte of a column's null bitmap.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceLimits, roundToTick } from '../../../daemon/kernel/tick-size.js';
import { waitForJob } from '../../helpers/jobs.js';
import { bar, stock } from '../../helpers/portfolio-harness.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type Msg, type TestClient } from '../ws/client.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const CODES = Array.from({ length: 20 }, (_, i) => String(100_000 + i * 10));
/** Yesterday's close of stock i, and today's: up i / 2 % (the top 3 gainers are the last three). */
const yesterday = (i: number) => 10_000 + 500 * i;
const today = (i: number) => roundToTick(yesterday(i) * (1 + i / 200));
const TOP3 = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3 };

describe('a screen alert reports the price of the tick that fired it', () => {
  let t: TestDaemon;
  let admin: string;
  let user: { access_token: string };
  let ws: TestClient | undefined;
  beforeAll(async () => {
    t = await startTestDaemon('screen-alert-price', { workers: 1, feed: 'ingest', admin_email: ADMIN.email, admin_password: ADMIN.password } as never);
    const ctx = t.daemon.context();
    await ctx.store.marketData.apply({
      stocks: CODES.map((c) => stock(c, `Stock ${c}`, 'KOSPI', 'Tech')),
      bars: CODES.flatMap((c, i) => [bar(c, '2025-01-02', yesterday(i)), bar(c, '2025-01-03', today(i))]),
      halts: [], financials: [], index: [],
    });
    admin = ((await (await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as { access_token: string }).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'compute-indicators' } });
    await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
    user = await t.login();
  }, 60_000);
  afterAll(async () => {
    await ws?.close();
    await t?.close();
  });

  const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await t.request(`/api/v1${path}`, { token: user.access_token, ...init });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('sends the entering stock at its tick price and the leaving one at its last price, and stores the same', async () => {
    // Given a preset of the top 3 gainers and alerts on stocks entering and leaving it
    const preset = await api('/screen/presets', { method: 'POST', json: { name: 'Top 3 gainers', query: TOP3 } });
    expect(preset.status).toBe(201);
    const create = async (alert_type: string) => {
      // Counted at once (no dwell): the firing comes with the tick.
      const res = await api('/alerts', { method: 'POST', json: { preset_id: preset.body.data.id, alert_type, dwell_s: 0 } });
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const enter = await create('screen_enter');
    const exit = await create('screen_exit');
    await vi.waitFor(() => expect(t.daemon.context().realtime.screenAlertEvaluator.size()).toBe(2), { timeout: 10_000, interval: 20 });
    ws = await connect(`${t.url.replace('http', 'ws')}/v1/ws?token=${user.access_token}`);
    await ws.next(ofType('connected'));
    const members = (await api('/screen?prices=live', { method: 'POST', json: TOP3 })).body.data.map((s: { code: string }) => s.code);
    expect(members).toEqual([CODES[19], CODES[18], CODES[17]]);

    // When a tick lifts stock 10 by 25 %, above every other gain of the day
    const price = Math.min(priceLimits(today(10)).upper, roundToTick(today(10) * 1.25));
    const posted = await t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { ticks: [{ code: CODES[10], price, volume: 5000 }] } });
    expect(posted.status).toBe(202);

    // Then the entering stock's alert carries the tick's price, and the leaving one its last price
    const alerts = await ws.collect(ofType('alert'), 2);
    const byType = (type: string) => alerts.find((m: Msg) => m.alert_type === type)!;
    expect(byType('screen_enter')).toMatchObject({ code: CODES[10], current_price: price });
    expect(byType('screen_enter').message).toContain(`at ${price.toLocaleString('en-US')}`);
    expect(byType('screen_exit')).toMatchObject({ code: CODES[17], current_price: today(17) });
    // And the firing history holds the same prices
    await t.daemon.context().realtime.screenAlertEvaluator.drain();
    expect((await api(`/alerts/${enter}/events`)).body.data).toMatchObject([{ code: CODES[10], price }]);
    expect((await api(`/alerts/${exit}/events`)).body.data).toMatchObject([{ code: CODES[17], price: today(17) }]);
  });
});
