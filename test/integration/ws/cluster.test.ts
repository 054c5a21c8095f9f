import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPrefix } from '../../helpers/test-daemon.js';
import { connect, ofType, type TestClient } from './client.js';
import { closeAndSave, priceEvent, startWsStack, type WsStack } from './harness.js';

async function subscribed(s: WsStack, code: string): Promise<{ c: TestClient; sessionId: string }> {
  const c = await connect(`${s.wsUrl}/v1/ws`);
  const sessionId = (await c.next(ofType('connected'))).session_id as string;
  c.send({ type: 'subscribe', subscription_type: 'stock', targets: [code] });
  await c.next(ofType('subscribed'));
  return { c, sessionId };
}

describe('two gateway instances on one Redis', () => {
  let a: WsStack;
  let b: WsStack;
  beforeAll(async () => {
    const prefix = testPrefix('ws-cluster');
    a = await startWsStack('cluster-a', { prefix, cleanup: false });
    b = await startWsStack('cluster-b', { prefix });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('delivers an event published once to clients of both instances', async () => {
    const onA = await subscribed(a, '005930');
    const onB = await subscribed(b, '005930');
    await a.bus.publish(priceEvent('005930', 1077));
    expect(await onA.c.next(ofType('price_update'))).toMatchObject({ price: 1077 });
    expect(await onB.c.next(ofType('price_update'))).toMatchObject({ price: 1077 });
    expect(onB.c.messages.filter((m) => m.type === 'price_update')).toHaveLength(1);
    await onA.c.close();
    await onB.c.close();
  });

  it('restores on instance B a session saved by instance A, with the replay', async () => {
    const watcherB = await subscribed(b, '000660');
    const { c, sessionId } = await subscribed(a, '000660');
    const before = c.ordered[c.ordered.length - 1]!.sequence!;
    await closeAndSave(a, c, sessionId);
    await a.bus.publish(priceEvent('000660', 888));
    await watcherB.c.next(ofType('price_update')); // B has dispatched it

    const back = await connect(`${b.wsUrl}/v1/ws?session_id=${sessionId}`);
    expect(await back.next()).toMatchObject({ type: 'reconnected', session_id: sessionId, missed_messages_count: 1 });
    expect(await back.next()).toMatchObject({ type: 'price_update', code: '000660', price: 888 });
    expect(back.ordered[0]!.sequence).toBe(before + 1);
    // Saved sessions are counted in Redis, so both instances report the same figure.
    const [sa, sb] = [await a.gateway.stats(), await b.gateway.stats()];
    expect(sa.saved_sessions).toBe(sb.saved_sessions);
    await back.close();
    await watcherB.c.close();
  });

  it('closes clients with 1001 on shutdown, saving their sessions for the other instance (close is idempotent)', async () => {
    const { c, sessionId } = await subscribed(a, '035720');
    await Promise.all([a.gateway.close(), a.gateway.close()]);
    expect(await c.closed).toMatchObject({ code: 1001 });
    const back = await connect(`${b.wsUrl}/v1/ws?session_id=${sessionId}`);
    expect(await back.next()).toMatchObject({ type: 'reconnected', session_id: sessionId, restored_subscriptions: { stock: ['035720'] } });
    await back.close();
  });
});
