/**
 * Alerts driven the way production drives them: ticks posted to `POST /admin/ticks` on a
 * daemon built by createDaemon (feed `ingest`), firings observed through
 * `GET /alerts/{id}/events` and the owner's WebSocket — never another user's. Every type,
 * one-shot vs recurring re-arm, and a cooldown on the daemon's injected clock. Then the
 * replay of missed alerts on session restore, from the durable records, even when the
 * bus history no longer holds them.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonContext } from '../../../daemon/daemon.js';
import { startTestDaemon, testRedisUrl, type TestDaemon } from '../../helpers/test-daemon.js';
import { bar, stock } from '../../helpers/portfolio-harness.js';
import { connect, ofType, type Msg, type TestClient } from '../ws/client.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
/** Eight stocks closing at 10,000 KRW (tick size 10) with 20 days of 1,000 shares: average volume 1,000. */
const CODES = ['100001', '100002', '100003', '100004', '100005', '100006', '100007', '100008'] as const;
const DATES = Array.from({ length: 20 }, (_, i) => new Date(Date.UTC(2025, 0, 2 + i)).toISOString().slice(0, 10));

let t: TestDaemon;
let ctx: DaemonContext;
let admin: string;
let alice: { access_token: string; id: string };
let bob: { access_token: string; id: string };
/** The daemon's clock: real time plus an offset the cooldown test moves forward. */
const clock = { offset: 0, now: () => Date.now() + clock.offset, advance: (ms: number) => void (clock.offset += ms) };
const volumes = new Map<string, number>();
const clients: TestClient[] = [];

const wsUrl = (query: string) => `${t.url.replace('http', 'ws')}/v1/ws?${query}`;
const json = async (res: Response) => (await res.json()) as any;

/** Post one tick (the day volume only grows) and wait until the firings it started are recorded and published. */
async function tick(code: string, price: number, volume?: number): Promise<void> {
  const v = volume ?? (volumes.get(code) ?? 0) + 1;
  volumes.set(code, v);
  const res = await t.request('/api/v1/admin/ticks', { method: 'POST', token: admin, json: { code, price, volume: v } });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(202);
  await ctx.realtime.alertEvaluator.drain();
}

async function createAlert(token: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('/api/v1/alerts', { method: 'POST', token, json: body });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201);
  return (await json(res)).data.id;
}

const firings = async (id: string, token = alice.access_token) => (await json(await t.request(`/api/v1/alerts/${id}/events`, { token }))).data as any[];

async function watcher(token: string): Promise<{ c: TestClient; sessionId: string }> {
  const c = await connect(wsUrl(`token=${token}`));
  clients.push(c);
  const sessionId = (await c.next(ofType('connected'))).session_id as string;
  c.send({ type: 'subscribe', subscription_type: 'stock', targets: [...CODES] });
  await c.next(ofType('subscribed'));
  return { c, sessionId };
}

beforeAll(async () => {
  t = await startTestDaemon('alerts-ingest', { feed: 'ingest', market_clock: 'always-open', admin_email: ADMIN.email, admin_password: ADMIN.password }, { clock });
  ctx = t.daemon.context();
  await ctx.store.marketData.apply({
    stocks: CODES.map((c) => stock(c, `Stock ${c}`, 'KOSPI', 'Test')),
    bars: CODES.flatMap((c) => DATES.map((d) => bar(c, d, 10_000, 1_000))),
    halts: [], financials: [], index: [],
  });
  await ctx.screening.snapshot.refresh();
  await ctx.realtime.feed.refreshStocks();
  admin = (await json(await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN }))).access_token;
  alice = await t.login();
  bob = await t.login();
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await t?.close();
});

describe('alerts fired by ticks ingested through POST /admin/ticks', () => {
  it('Given one alert of each type, one-shot and recurring, when ticks cross them, then each firing is recorded and pushed to its owner only', async () => {
    const mine = await watcher(alice.access_token);
    const theirs = await watcher(bob.access_token);
    const owner = alice.access_token;
    const ids = {
      priceAbove: await createAlert(owner, { code: '100001', alert_type: 'price_above', threshold: 10_100 }),
      priceBelow: await createAlert(owner, { code: '100002', alert_type: 'price_below', threshold: 9_900 }),
      changeAbove: await createAlert(owner, { code: '100003', alert_type: 'change_percent_above', threshold: 2 }),
      changeBelow: await createAlert(owner, { code: '100004', alert_type: 'change_percent_below', threshold: -2 }),
      volumeAbove: await createAlert(owner, { code: '100005', alert_type: 'volume_above', threshold: 2 }),
      recurring: await createAlert(owner, { code: '100006', alert_type: 'price_above', threshold: 10_100, recurring: true }),
      cooldown: await createAlert(owner, { code: '100007', alert_type: 'price_above', threshold: 10_100, recurring: true, cooldown_s: 60 }),
    };

    // price_above: below, at (fires), further above (a one-shot fired already)
    await tick('100001', 10_050);
    await tick('100001', 10_100);
    await tick('100001', 10_200);
    // price_below
    await tick('100002', 9_950);
    await tick('100002', 9_900);
    // change_percent_above 2: +1.5 %, then +2 %
    await tick('100003', 10_150);
    await tick('100003', 10_200);
    // change_percent_below -2: −1.5 %, then −2 %
    await tick('100004', 9_850);
    await tick('100004', 9_800);
    // volume_above 2 × the 1,000 average: 1,500, then 2,000 shares today
    await tick('100005', 10_000, 1_500);
    await tick('100005', 10_000, 2_000);
    // recurring: fires, stays above (nothing), falls below (re-arms), crosses again (fires)
    for (const price of [10_100, 10_200, 10_000, 10_150]) await tick('100006', price);
    // recurring with a 60 s cooldown: fires, re-arms, crosses within the cooldown (nothing), crosses after it (fires)
    await tick('100007', 10_100);
    await tick('100007', 10_000);
    clock.advance(30_000);
    await tick('100007', 10_120);
    clock.advance(31_000);
    await tick('100007', 10_110);

    const prices = async (id: string) => (await firings(id)).map((f) => f.price).reverse();
    expect(await prices(ids.priceAbove)).toEqual([10_100]);
    expect(await prices(ids.priceBelow)).toEqual([9_900]);
    expect(await prices(ids.changeAbove)).toEqual([10_200]);
    expect(await prices(ids.changeBelow)).toEqual([9_800]);
    expect(await prices(ids.volumeAbove)).toEqual([10_000]);
    expect(await prices(ids.recurring)).toEqual([10_100, 10_150]);
    expect(await prices(ids.cooldown)).toEqual([10_100, 10_110]);
    const shown = async (id: string) => (await json(await t.request(`/api/v1/alerts/${id}`, { token: owner }))).data;
    expect(await shown(ids.priceAbove)).toMatchObject({ active: false, fire_count: 1 });
    expect(await shown(ids.recurring)).toMatchObject({ active: true, fire_count: 2 });
    // Another user cannot read them.
    expect((await t.request(`/api/v1/alerts/${ids.priceAbove}/events`, { token: bob.access_token })).status).toBe(404);

    // A later tick reaches both sockets after every alert published before it.
    await tick('100008', 10_300);
    for (const w of [mine, theirs]) await w.c.next((m: Msg) => m.type === 'price_update' && m.code === '100008');
    const alerts = mine.c.messages.filter((m) => m.type === 'alert');
    expect(alerts.map((m) => [m.code, m.alert_type, m.current_price])).toEqual([
      ['100001', 'price_above', 10_100],
      ['100002', 'price_below', 9_900],
      ['100003', 'change_percent_above', 10_200],
      ['100004', 'change_percent_below', 9_800],
      ['100005', 'volume_above', 10_000],
      ['100006', 'price_above', 10_100],
      ['100006', 'price_above', 10_150],
      ['100007', 'price_above', 10_100],
      ['100007', 'price_above', 10_110],
    ]);
    expect(alerts[0]).toMatchObject({ threshold: 10_100, message: expect.stringContaining('(100001)'), sequence: expect.any(Number) });
    expect(theirs.c.messages.filter((m) => m.type === 'alert')).toEqual([]);
  });
});

describe('missed alerts on session restore', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(() => redis.disconnect());

  /** Close the socket and resolve once the daemon saved its session. */
  async function away(c: TestClient, sessionId: string): Promise<void> {
    const saved = new Promise<void>((resolve) => {
      const on = (conn: { sessionId: string; finished: Promise<void> }) => {
        if (conn.sessionId !== sessionId) return;
        ctx.realtime.gateway.events.off('close', on);
        void conn.finished.then(resolve);
      };
      ctx.realtime.gateway.events.on('close', on);
    });
    await c.close();
    await saved;
  }

  beforeAll(() => {
    clock.offset = 0; // back to real time: replayed alerts are ordered by firing time against the bus's (Redis) time
  });

  it('Given an alert fired while the session was saved and a history trimmed past it, when the owner restores, then the alert is replayed after the snapshot', async () => {
    const id = await createAlert(alice.access_token, { code: '100008', alert_type: 'price_below', threshold: 9_500 });
    const { c, sessionId } = await watcher(alice.access_token);
    await away(c, sessionId);
    await tick('100008', 9_500); // fires while away
    expect(await firings(id)).toHaveLength(1);
    await tick('100001', 10_010);
    await redis.xtrim(`${t.prefix}events`, 'MAXLEN', 1); // only the last tick is left: the alert is gone from the bus

    const back = await connect(wsUrl(`token=${alice.access_token}&session_id=${sessionId}`));
    clients.push(back);
    const reconnected = await back.next();
    expect(reconnected).toMatchObject({ type: 'reconnected', session_id: sessionId, history_truncated: true, missed_messages_estimated: true, replayed_messages: 1 });
    const after: Msg[] = [];
    for (let i = 0; i < CODES.length + 2; i++) after.push(await back.next());
    expect(after.slice(0, CODES.length).every((m) => m.type === 'price_update')).toBe(true);
    expect(after[CODES.length]).toMatchObject({ type: 'alert', code: '100008', alert_type: 'price_below', threshold: 9_500, current_price: 9_500 });
    expect(after[CODES.length + 1]).toMatchObject({ type: 'market_status', market: 'KOSPI', status: 'open' });
  });

  it('Given an alert fired while away and still in the history, when the owner restores, then it is replayed once, in time order with the prices', async () => {
    const id = await createAlert(alice.access_token, { code: '100002', alert_type: 'price_above', threshold: 10_500 });
    const { c, sessionId } = await watcher(alice.access_token);
    await away(c, sessionId);
    await tick('100002', 10_400);
    await tick('100002', 10_500); // fires
    await tick('100002', 10_450);
    expect(await firings(id)).toHaveLength(1);

    const back = await connect(wsUrl(`token=${alice.access_token}&session_id=${sessionId}`));
    clients.push(back);
    const reconnected = await back.next();
    expect(reconnected).toMatchObject({ type: 'reconnected', history_truncated: false, missed_messages_count: 4, replayed_messages: 4 });
    const replay = [await back.next(), await back.next(), await back.next(), await back.next()];
    // Merged by time: the firing sorts after 10,400 and before 10,450 (next to the 10,500 that triggered it).
    expect(replay.filter((m) => m.type === 'price_update').map((m) => m.price)).toEqual([10_400, 10_500, 10_450]);
    const at = replay.findIndex((m) => m.type === 'alert');
    expect([1, 2]).toContain(at);
    expect(replay[at]).toMatchObject({ code: '100002', current_price: 10_500 });
    await back.next(ofType('market_status'));
    expect(back.messages.filter((m) => m.type === 'alert')).toHaveLength(1);
  });
});
