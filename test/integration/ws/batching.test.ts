import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, ofType } from './client.js';
import { priceEvent, startWsStack, type WsStack } from './harness.js';

describe('batching', () => {
  let batched: WsStack;
  let unbatched: WsStack;
  beforeAll(async () => {
    // A wider flush interval than the default 30 ms keeps the frame count independent of machine load.
    batched = await startWsStack('batching', { options: { batchIntervalMs: 100 } });
    unbatched = await startWsStack('unbatched', { options: { batchIntervalMs: 0 } });
  });
  afterAll(async () => {
    await batched.close();
    await unbatched.close();
  });

  it('delivers 50 events in far fewer frames, all in order, with gapless sequences', async () => {
    const c = await connect(`${batched.wsUrl}/v1/ws`);
    await c.next(ofType('connected'));
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['005930'] });
    await c.next(ofType('subscribed'));
    const framesBefore = c.frames.length;

    // One pipeline of 50 ticks is read in one or two XREADs, well inside one 100 ms flush interval.
    await batched.bus.publishMany(Array.from({ length: 50 }, (_, i) => priceEvent('005930', 1001 + i)));
    const updates = await c.collect(ofType('price_update'), 50);
    expect(updates.map((m) => m.price)).toEqual(Array.from({ length: 50 }, (_, i) => 1001 + i));
    const frames = c.frames.slice(framesBefore);
    expect(frames.length).toBeLessThanOrEqual(5);
    for (const f of frames.filter((f) => f.type === 'batch')) {
      expect(f.batch_size).toBe((f.messages as unknown[]).length);
    }
    // Sequence rule: a batch frame takes the number before its inner messages.
    expect(c.ordered.map((m) => m.sequence)).toEqual(c.ordered.map((_, i) => i + 1));
    const batch = frames.find((f) => f.type === 'batch')!;
    const inner = batch.messages as { sequence: number }[];
    expect(inner[0]!.sequence).toBe(batch.sequence! + 1);
    await c.close();
  });

  it('sends every message as its own frame when batching is off (interval 0)', async () => {
    const c = await connect(`${unbatched.wsUrl}/v1/ws`);
    expect(await c.next(ofType('connected'))).toMatchObject({ batching_enabled: false, batch_interval_ms: 0 });
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: ['000660'] });
    await c.next(ofType('subscribed'));
    await unbatched.bus.publishMany(Array.from({ length: 20 }, (_, i) => priceEvent('000660', 900 + i)));
    await c.collect(ofType('price_update'), 20);
    expect(c.frames.some((f) => f.type === 'batch')).toBe(false);
    expect(c.frames.map((f) => f.sequence)).toEqual(c.frames.map((_, i) => i + 1));
    await c.close();
  });
});
