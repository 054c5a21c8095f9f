import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { connect, ofType, type TestClient } from './client.js';
import { startWsStack, type WsStack } from './harness.js';

async function open(s: WsStack, options = {}): Promise<TestClient> {
  const c = await connect(`${s.wsUrl}/v1/ws`, options);
  await c.next(ofType('connected'));
  return c;
}

describe('client message rate limit, injected clock', () => {
  const clock = createManualClock(Date.parse('2025-03-04T01:00:00.000Z'));
  let s: WsStack;
  let strict: WsStack;
  beforeAll(async () => {
    s = await startWsStack('rate', { clock });
    strict = await startWsStack('rate-strict', { clock, options: { rateLimit: 3 } });
  });
  afterAll(async () => {
    await s.close();
    await strict.close();
  });

  it('answers the 101st message within one second with RATE_LIMIT_EXCEEDED and details.rate_limit, once per episode', async () => {
    const c = await open(s);
    // The clock stands still: all 102 pings fall into the same 1-second window.
    for (let i = 0; i < 102; i++) c.send({ type: 'ping' });
    const pongs = await c.collect(ofType('pong'), 100);
    const error = await c.next(ofType('error'));
    expect(error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { rate_limit: 100, window_ms: 1000 } });
    expect(pongs).toHaveLength(100);

    // One second later the window has room again.
    clock.advance(1000);
    c.send({ type: 'ping' });
    await c.collect(ofType('pong'), 101);
    expect(c.messages.filter((m) => m.type === 'error')).toHaveLength(1);
    expect(c.messages.filter((m) => m.type === 'pong')).toHaveLength(101);
    await c.close();
  });

  it('closes with 1008 after repeated violations', async () => {
    const c = await open(strict);
    for (let episode = 1; episode <= 5; episode++) {
      for (let i = 0; i < 4; i++) c.send({ type: 'ping' }); // limit 3: the 4th is refused
      await c.collect(ofType('error', { code: 'RATE_LIMIT_EXCEEDED' }), episode);
      clock.advance(1000);
    }
    expect(await c.closed).toMatchObject({ code: 1008 });
  });

  it('closes a flood with 1008 without waiting for more episodes', async () => {
    const c = await open(strict);
    clock.advance(1000);
    for (let i = 0; i < 3 + 31; i++) c.send({ type: 'ping' }); // > 10 × limit refused in one episode
    expect(await c.closed).toMatchObject({ code: 1008 });
    expect(c.messages.filter((m) => m.type === 'error')).toHaveLength(1);
  });
});

describe('subscription, frame-size and heartbeat limits', () => {
  let s: WsStack;
  let small: WsStack;
  beforeAll(async () => {
    s = await startWsStack('limits');
    small = await startWsStack('limits-small', { options: { maxSubscriptions: 3, heartbeatMs: 50 } });
  });
  afterAll(async () => {
    await s.close();
    await small.close();
  });

  it('refuses more than 50 targets in one request with SUBSCRIPTION_FAILED', async () => {
    const c = await open(s);
    const targets = Array.from({ length: 51 }, (_, i) => String(100000 + i));
    c.send({ type: 'subscribe', subscription_type: 'stock', targets });
    expect(await c.next()).toMatchObject({
      type: 'error', code: 'SUBSCRIPTION_FAILED', details: { reason: 'too_many_targets', requested: 51, max_targets_per_request: 50 },
    });
    await c.close();
  });

  it('refuses subscriptions beyond the per-connection maximum, leaving the existing ones', async () => {
    const c = await open(small);
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930', '000660'] });
    await c.next(ofType('subscribed'));
    c.send({ type: 'subscribe', subscription_type: 'market', targets: ['KOSPI', 'KOSDAQ'] });
    expect(await c.next()).toMatchObject({
      type: 'error', code: 'SUBSCRIPTION_FAILED', details: { reason: 'subscription_limit', current_subscriptions: 2, max_subscriptions: 3 },
    });
    // Re-subscribing to held targets costs nothing; one more still fits.
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930', '000660'] });
    await c.next(ofType('subscribed'));
    c.send({ type: 'subscribe', subscription_type: 'market', targets: ['KOSPI'] });
    expect(await c.next()).toMatchObject({ type: 'subscribed', targets: ['KOSPI'] });
    const row = small.gateway.connections().find((r) => r.subscriptions.market.length === 1);
    expect(row?.subscriptions).toEqual({ stock: ['005930', '000660'], market: ['KOSPI'], sector: [] });
    await c.close();
  });

  it('accepts a frame just under 64 KB and closes with 1009 on a larger one', async () => {
    const c = await open(s);
    c.send({ type: 'teleport', padding: 'x'.repeat(60 * 1024) });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'INVALID_MESSAGE' });
    c.send({ type: 'ping', padding: 'x'.repeat(65 * 1024) });
    expect(await c.closed).toMatchObject({ code: 1009 });
  });

  it('drops a connection that stops answering protocol pings and keeps a live one', async () => {
    const live = await open(small);
    const dead = await open(small, { autoPong: false });
    const closed = await dead.closed; // terminated by the server after a missed pong
    expect(closed.code).toBe(1006);
    expect(live.ws.readyState).toBe(live.ws.OPEN);
    await live.close();
  });
});
