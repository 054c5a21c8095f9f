/**
 * Daily digests on the daemon's injected clock: a schedule at 15:40 Korea time runs on a trading
 * day, not on a KRX holiday nor before its time, and sends the preset's members with what entered
 * and left since the previous run; its last and next run are visible; two daemons running the
 * digest clock at once send one digest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type Receiver, type WebhookReceived } from '../../helpers/notify-receivers.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { CODES, startNotifyDaemon, until, type NotifyDaemon } from './harness.js';

/** The daemons' clock (Korea is UTC+9). */
let now = Date.parse('2025-10-02T15:30:00+09:00');
const clock = { now: () => now };
let d: NotifyDaemon;
let twin: TestDaemon;
let receiver: Receiver<WebhookReceived>;
let secret = '';
let email: string;
let scheduleId: string;
/** An access token valid on the daemon's clock now (the clock jumps days ahead). */
const token = async () => ((await (await d.t.request('/api/v1/auth/login', { method: 'POST', json: { email, password: 'correct horse battery' } })).json()) as any).access_token as string;
let version = 0;

/** Set each stock's PER (the preset keeps per <= 10) and swap the snapshot in. */
async function setPer(per: Record<string, number>): Promise<void> {
  const run = { version: `per-${++version}`, as_of: '2025-01-10', stocks: CODES.length, duration_ms: 1, computed_at: new Date().toISOString() };
  await d.ctx.store.indicators.replaceAll(new Map(CODES.map((c) => [c, { per: per[c] ?? 50 }])), run);
  await d.ctx.screening.snapshot.refresh();
}

/** Move the clock, then wait until the digest clock has looked twice since. */
async function at(iso: string): Promise<void> {
  now = Date.parse(iso);
  const seen = d.ctx.notify.digests.ticks();
  await until('two digest ticks', async () => d.ctx.notify.digests.ticks() >= seen + 2);
}

const schedule = async () => d.call('GET', `/schedules/${scheduleId}`, await token(), undefined, 200);

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: () => secret });
  d = await startNotifyDaemon('notify-digests', { delivery_group_wait_ms: 0, digest_check_interval_ms: 200 }, { clock });
  email = (await d.t.login()).email;
  const tok = await token();
  await setPer({ [CODES[0]]: 5, [CODES[1]]: 6 });
  const preset = await d.call('POST', '/screen/presets', tok, { name: 'cheap', query: { filters: { per: { max: 10 } }, sort: [{ field: 'per', direction: 'asc' }] } }, 201);
  const hook = await d.call('POST', '/channels', tok, { type: 'webhook', name: 'digest', url: `${receiver.url}/digest` }, 201);
  secret = hook.secret;
  scheduleId = (await d.call('POST', '/schedules', tok, { preset_id: preset.id, at: '15:40', channels: [hook.id] }, 201)).id;
}, 60_000);
afterAll(async () => {
  await twin?.daemon.close();
  await d?.close();
  await receiver?.close();
});

describe('daily digests', () => {
  it('Given a trading day past 15:40, then the digest is sent with every member (all entered at the first run)', async () => {
    expect((await schedule()).next_run_at).toBe('2025-10-02T06:40:00.000Z');
    await at('2025-10-02T15:39:00+09:00');
    expect(receiver.received).toHaveLength(0);
    now = Date.parse('2025-10-02T15:41:00+09:00');
    const [got] = await receiver.waitFor(1);
    expect(got!.verified).toBe(true);
    expect(got!.json).toMatchObject({
      type: 'schedule.digest',
      data: { schedule_id: scheduleId, preset_name: 'cheap', trade_date: '2025-10-02', previous_trade_date: null, left: [] },
    });
    expect(got!.json.data.members.map((m: any) => m.code)).toEqual([CODES[0], CODES[1]]);
    expect(got!.json.data.entered.map((m: any) => m.code)).toEqual([CODES[0], CODES[1]]);
    expect((await schedule()).last_run).toMatchObject({ trade_date: '2025-10-02', members: 2, entered: 2, left: 0 });
  });

  it('When the screen changes, then nothing is sent on the holiday (개천절) nor before 15:40, and the next trading day says what entered and left', async () => {
    await setPer({ [CODES[0]]: 5, [CODES[1]]: 30, [CODES[2]]: 4 });
    await at('2025-10-03T15:45:00+09:00');
    await at('2025-10-10T15:39:00+09:00');
    expect(receiver.received).toHaveLength(1);
    expect((await schedule()).last_run.trade_date).toBe('2025-10-02');
    expect((await schedule()).next_run_at).toBe('2025-10-10T06:40:00.000Z');
    now = Date.parse('2025-10-10T15:41:00+09:00');
    const [, got] = await receiver.waitFor(2);
    expect(got!.json.data).toMatchObject({ trade_date: '2025-10-10', previous_trade_date: '2025-10-02' });
    expect(got!.json.data.members.map((m: any) => m.code)).toEqual([CODES[2], CODES[0]]);
    expect(got!.json.data.entered.map((m: any) => m.code)).toEqual([CODES[2]]);
    expect(got!.json.data.left.map((m: any) => m.code)).toEqual([CODES[1]]);
    // Friday's run done: the next is Monday 2025-10-13 at 15:40 KST.
    expect(await schedule()).toMatchObject({ last_run: { trade_date: '2025-10-10', members: 2, entered: 1, left: 1 }, next_run_at: '2025-10-13T06:40:00.000Z' });
  });

  it('Given two daemons whose digest clocks look at the same moment, then one digest is sent', async () => {
    twin = await startTestDaemon('notify-digests-twin', { ...d.t.store, redis_prefix: d.t.prefix, delivery_group_wait_ms: 0, delivery_workers: 0, digest_check_interval_ms: 200, webhook_allow_private: true }, { clock });
    now = Date.parse('2025-10-13T15:40:30+09:00');
    // The daemon's own digest clock (every 200 ms) may be the one that runs it: at most one of these does.
    const runs = await Promise.all([d.ctx.notify.digests.tick(), twin.daemon.context().notify.digests.tick(), d.ctx.notify.digests.tick()]);
    expect(runs.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
    const [, , got] = await receiver.waitFor(3);
    expect(got!.json.data.trade_date).toBe('2025-10-13');
    await at('2025-10-13T15:41:00+09:00');
    expect(await Promise.all([d.ctx.notify.digests.tick(), twin.daemon.context().notify.digests.tick()])).toEqual([0, 0]);
    expect(receiver.received).toHaveLength(3);
    const log = await until('three digests delivered', async () => {
      const list = await d.call('GET', '/deliveries?status=delivered', await token(), undefined, 200);
      return list.length === 3 ? list : undefined;
    });
    expect(log.filter((x: any) => x.kind === 'digest')).toHaveLength(3);
    expect(log.every((x: any) => x.schedule_id === scheduleId)).toBe(true);
  });

  it("refuses another user's schedule (404), preset and channel (400)", async () => {
    const other = (await d.t.login()).access_token;
    await d.call('GET', `/schedules/${scheduleId}`, other, undefined, 404);
    await d.call('DELETE', `/schedules/${scheduleId}`, other, undefined, 404);
    const mine = await d.call('GET', '/schedules', await token(), undefined, 200);
    const res = await d.t.request('/api/v1/schedules', { method: 'POST', token: other, json: { preset_id: mine[0].preset_id, at: '09:00', channels: mine[0].channels } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details).toEqual({ preset_id: 'no preset of yours has this id' });
  });
});
