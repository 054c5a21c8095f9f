/**
 * `stockscreen screen --live` and `watch --screen` against a real daemon: the live screen's
 * events as NDJSON (subscribed with the members, then screen_update as ticks push a stock
 * into the top of the screen), the Ink view, and usage errors.
 */
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceLimits } from '../../../daemon/kernel/tick-size.js';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { connect, ofType, type TestClient } from '../ws/client.js';
import { priceNear, startMarketHarness, streamIO, ttyIO, type MarketHarness } from './market-harness.js';

describe('stockscreen screen --live', () => {
  let h: MarketHarness;
  let volume = 1000;
  const tick = (code: string, price: number) => h.tick(code, price, (volume += 100));
  const liveScreens = () => h.t.daemon.context().realtime.liveScreens.engine.stats().subscriptions;

  beforeAll(async () => {
    h = await startMarketHarness('cli-screen-live', { live_screen_limits: { free: { per_connection: 3, per_user: 10 } } });
  });
  afterAll(() => h?.close());

  it('prints the live screen as NDJSON: the members, then entries and exits as ticks move stocks', async () => {
    const io = streamIO();
    const done = h.cli(['screen', '--live', '--sort', 'change_percent:desc', '--limit', '3', '--json', '--count', '2'], io);
    const sub = await io.waitForJson((m) => m.type === 'subscribed');
    expect(sub).toMatchObject({ subscription_type: 'screen', source: 'query', per_page: 3, count: 3 });
    const members = (sub.members as { code: string }[]).map((m) => m.code);
    const outsider = h.stocks.find((s) => !members.includes(s.code))!;
    const price = await tick(outsider.code, priceNear(outsider.close, 29));
    expect((await done).code).toBe(0);
    const update = JSON.parse(io.lines()[1]!) as Record<string, unknown>;
    expect(update).toMatchObject({ type: 'screen_update', screen_id: sub.screen_id, count: 3, exited: [members[2]] });
    expect(update.entered).toEqual([expect.objectContaining({ code: outsider.code, price })]);
    // Every line is a live-screen message: no connected, no market_status.
    expect(io.lines().map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['subscribed', 'screen_update']);
  });

  it('keeps a template live with --market and --limit applied: every member on that market', async () => {
    // Given the large-cap template, whose members span both markets
    const plain = (await (await h.t.request('/api/v1/screen/templates/large-cap', { method: 'POST', token: h.adminToken, json: { per_page: 100 } })).json()) as { data: { market: string }[] };
    expect(new Set(plain.data.map((r) => r.market))).toEqual(new Set(['KOSPI', 'KOSDAQ']));
    // When it is kept live on KOSDAQ, top 4
    const io = streamIO();
    const done = h.cli(['screen', '--live', '--template', 'large-cap', '--market', 'KOSDAQ', '--limit', '4', '--json', '--count', '1'], io);
    const sub = await io.waitForJson((m) => m.type === 'subscribed');
    expect((await done).code).toBe(0);
    // Then the screen follows the overrides: four KOSDAQ members, the page POST /screen/templates gives for them
    expect(sub).toMatchObject({ source: 'template:large-cap', overrides: { market: 'KOSDAQ', per_page: 4 }, per_page: 4, count: 4 });
    const members = sub.members as { code: string; market: string }[];
    expect(new Set(members.map((m) => m.market))).toEqual(new Set(['KOSDAQ']));
    const rest = (await (await h.t.request('/api/v1/screen/templates/large-cap', { method: 'POST', token: h.adminToken, json: { market: 'KOSDAQ', per_page: 4 } })).json()) as { data: { code: string }[] };
    expect(members.map((m) => m.code)).toEqual(rest.data.map((r) => r.code));
  });

  it('draws the members and the event log on a terminal', async () => {
    const io = ttyIO();
    const done = h.cli(['--no-color', 'screen', '--live', '--sort', 'change_percent:desc', '--limit', '3', '--count', '2'], io);
    await vi.waitFor(() => expect(liveScreens()).toBeGreaterThan(0), { timeout: 10_000 });
    // A stock at its upper price limit (about +30 %) tops the screen: it enters.
    const top = h.stocks.at(-1)!;
    await tick(top.code, priceLimits(top.close).upper);
    expect((await done).code).toBe(0);
    const screen = stripVTControlCharacters(io.out());
    expect(screen).toContain('stockscreen screen --live');
    expect(screen).toMatch(/members 3/);
    expect(screen).toContain(`+ 편입 ${top.code}`);
  });

  it('refuses bad flag combinations and reports a refused screen', async () => {
    const both = await h.cli(['screen', '--live', '--template', 'value', '--preset', 'x']);
    expect(both.code).toBe(2);
    const csv = await h.cli(['screen', '--live', '--csv']);
    expect(csv.code).toBe(2);
    const count = await h.cli(['screen', '--count', '3']);
    expect(count.code).toBe(2);
    expect(count.io.err()).toContain('--live only');
    expect((await h.cli(['screen', '--dwell', '30s'])).code).toBe(2);
    const long = await h.cli(['screen', '--live', '--dwell', '2h']);
    expect(long.code).toBe(2);
    expect(long.io.err()).toContain('--dwell');
    const bad = await h.cli(['screen', '--live', '--json', '--template', 'no-such-template']);
    expect(bad.code).toBe(1);
    expect(bad.io.err()).toContain('Unknown template');
    const refused = await h.cli(['screen', '--live', '--json', '--where', 'per < 10 and nonsense_field > 3']);
    expect(refused.code).toBe(1);
    expect(refused.io.err()).toMatch(/SUBSCRIPTION_FAILED|not subscribed/);
  });

  it('shows live-screen entries and exits in watch', async () => {
    const stop = new AbortController();
    const io = streamIO({ signal: stop.signal });
    const a = h.stocks[1]!;
    const done = h.cli(['watch', a.code, '--screen', 'template:momentum', '--json'], io);
    const sub = await io.waitForJson((m) => m.type === 'subscribed' && m.subscription_type === 'screen');
    expect(sub.source).toBe('template:momentum');
    await io.waitForJson((m) => m.type === 'subscribed' && m.subscription_type === 'stock');
    const price = await tick(a.code, priceNear(a.close, 1));
    await io.waitForJson((m) => m.type === 'price_update' && m.price === price);
    stop.abort();
    expect((await done).code).toBe(0);
  });
});

describe('stockscreen screen --live --dwell', () => {
  // The daemon runs on a manual clock: "after the dwell" is a move of that clock, not a wait.
  const clock = createManualClock();
  let h: MarketHarness;
  let observer: TestClient;
  let volume = 1000;
  const tick = (code: string, price: number) => h.tick(code, price, (volume += 100));
  const TOP3 = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3 };

  beforeAll(async () => {
    h = await startMarketHarness('cli-screen-dwell', { live_screen_limits: { free: { per_connection: 3, per_user: 10 } } }, undefined, { clock });
    // A subscriber of the same screen without dwell: its updates say when the daemon has applied a tick.
    observer = await connect(`${h.t.url.replace('http', 'ws')}/v1/ws?token=${h.adminToken}`);
    observer.send({ type: 'subscribe', subscription_type: 'screen', query: TOP3 });
    await observer.next(ofType('subscribed', { subscription_type: 'screen' }));
  });
  afterAll(async () => {
    await observer?.close();
    await h?.close();
  });

  it('prints only the entry that held for the dwell, never the stock that entered and left within it', async () => {
    const io = streamIO();
    const done = h.cli(['screen', '--live', '--sort', 'change_percent:desc', '--limit', '3', '--dwell', '1m', '--json', '--count', '2'], io);
    const sub = await io.waitForJson((m) => m.type === 'subscribed');
    const members = (sub.members as { code: string }[]).map((m) => m.code);
    const [hover, stay] = h.stocks.filter((s) => !members.includes(s.code));
    const entered = (code: string) => (m: { type: string; entered?: unknown }) => m.type === 'screen_update' && (m.entered as { code: string }[]).some((r) => r.code === code);
    // One stock jumps into the top 3 and falls back out; another goes to its upper limit and stays
    await tick(hover!.code, priceNear(hover!.close, 29));
    await observer.next(entered(hover!.code));
    await tick(hover!.code, priceNear(hover!.close, -5));
    await observer.next((m) => m.type === 'screen_update' && (m.exited as string[]).includes(hover!.code));
    await tick(stay!.code, priceLimits(stay!.close).upper);
    await observer.next(entered(stay!.code));
    clock.advance(60_000);
    expect((await done).code).toBe(0);
    const update = JSON.parse(io.lines()[1]!) as { type: string; entered: { code: string }[]; exited: string[] };
    expect(update.type).toBe('screen_update');
    expect(update.entered.map((r) => r.code)).toEqual([stay!.code]);
    expect(update.exited).toEqual([members[2]]);
  });
});
