/**
 * End to end: a tick fires an alert in the evaluator, which records it and publishes it
 * on the market bus; the WebSocket gateway (its own test stack, same Redis prefix)
 * pushes it to the owner's sockets only, as the spec's `alert` message.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createManualClock } from '../../../daemon/infra/clock.js';
import type { TestStore } from '../../helpers/portfolio-harness.js';
import { connect, ofType } from '../ws/client.js';
import { startWsStack, type WsStack } from '../ws/harness.js';
import { openAlertStore, redisPrefix, startInstance, tick, type AlertInstance } from './stack.js';

let store: TestStore;
let node: AlertInstance;
let ws: WsStack;
const redis = redisPrefix('alert-delivery');

beforeAll(async () => {
  store = await openAlertStore();
  ws = await startWsStack('alerts', { prefix: redis.prefix, cleanup: false });
  node = await startInstance(store.settings, { prefix: redis.prefix, clock: createManualClock(Date.parse('2025-03-04T01:02:03Z')) });
});
afterAll(async () => {
  await node?.close();
  await ws?.close();
  await redis.cleanup();
  await store?.close();
});

it("pushes a firing to every socket of its owner and to no one else's", async () => {
  const owner = await store.user('pro');
  const other = await store.user('pro');
  const sockets = [];
  for (const id of [owner.id, owner.id, other.id]) {
    const c = await connect(`${ws.wsUrl}/v1/ws?token=${await ws.token(id)}`);
    await c.next(ofType('connected'));
    sockets.push(c);
  }
  const [mine, mine2, theirs] = sockets as [typeof sockets[0], typeof sockets[0], typeof sockets[0]];
  try {
    await node.service.create({ id: owner.id, tier: 'pro' }, { code: '005930', alert_type: 'price_above', threshold: 71000 });
    await node.service.create({ id: other.id, tier: 'pro' }, { code: '005930', alert_type: 'price_above', threshold: 72000 });
    expect(await node.evaluator.onTick([tick('005930', 71500)])).toHaveLength(1);
    expect(await node.evaluator.onTick([tick('005930', 72500)])).toHaveLength(1); // only the other user's alert is still armed
    for (const c of [mine, mine2]) {
      expect(await c.next(ofType('alert'))).toEqual({
        type: 'alert', code: '005930', alert_type: 'price_above', threshold: 71000, current_price: 71500,
        message: 'Samsung Electronics (005930) price 71,500 reached 71,000 or above', timestamp: '2025-03-04T01:02:03.000Z', sequence: expect.any(Number),
      });
    }
    // The other user's alert was published after the owner's: had the owner's reached them, it would have come first.
    expect((await theirs.next(ofType('alert'))).threshold).toBe(72000);
  } finally {
    for (const c of sockets) await c.close();
  }
});
