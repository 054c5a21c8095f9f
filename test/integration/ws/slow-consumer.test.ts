import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '../../../daemon/ws/connection.js';
import { connect, ofType } from './client.js';
import { priceEvent, startWsStack, type WsStack } from './harness.js';

const HIGH_WATER = 64 * 1024;

describe('slow consumer', () => {
  let s: WsStack;
  beforeAll(async () => {
    s = await startWsStack('slow', { options: { highWaterBytes: HIGH_WATER, maxBehindFlushes: 20, batchIntervalMs: 10, closeGraceMs: 200 }, maxLen: 2000,
      // Batches of 400 KB are published as fast as Redis takes them: a busy machine may need more
      // than the daemon's fail-fast command timeout for one of them, which is not what is tested here.
      redisCommandTimeoutMs: 10_000 });
  });
  afterAll(() => s.close());

  it('coalesces to the latest price per code while the client does not read, then closes it; memory stays bounded', async () => {
    // Given a client on every KOSPI stock that stops reading its socket
    const c = await connect(`${s.wsUrl}/v1/ws`, { perMessageDeflate: false });
    await c.next(ofType('connected'));
    c.send({ type: 'subscribe', subscription_type: 'market', targets: ['KOSPI'] });
    await c.next(ofType('subscribed'));
    (c.ws as unknown as { _socket: Socket })._socket.pause();

    const slow = new Promise<{ conn: Connection; details: Record<string, number> }>((resolve) =>
      s.gateway.events.once('slow_consumer', (conn: Connection, details: Record<string, number>) => resolve({ conn, details })),
    );
    let flagged = false;
    void slow.then(() => (flagged = true));
    const closed = new Promise<Connection>((resolve) => s.gateway.events.once('close', resolve));

    // When far more data is published than the socket buffers hold (3 codes, 4 KB names).
    // Publishing goes on until the server reports the consumer: loopback kernel buffers can
    // absorb several MB, and a gateway reading behind a trimmed stream sees only part of
    // each round, so no fixed amount is sure to be enough (the bound only stops a runaway).
    const name = 'N'.repeat(4096);
    let published = 0;
    for (let round = 0; round < 2000 && !flagged; round++) {
      const batch = Array.from({ length: 100 }, (_, i) => priceEvent(['005930', '000660', '035720'][i % 3]!, 1000 + round, { name }));
      await s.bus.publishMany(batch);
      published += batch.length * name.length;
    }
    const { details } = await slow;

    // Then the server-side queue held at most one price per code, the socket buffer stayed near
    // the threshold (one flush beyond it at most), and the connection was closed.
    expect(published).toBeGreaterThan(4 * 1024 * 1024);
    expect(details.queued).toBeLessThanOrEqual(3);
    expect(details.buffered_bytes).toBeLessThanOrEqual(HIGH_WATER + 2 * 64 * 1024); // threshold + about one frame
    expect(details.behind_flushes).toBeGreaterThan(20);
    await closed;
    expect(s.gateway.connections()).toEqual([]);
    expect((await s.gateway.stats()).queued_messages).toBe(0);
  });
});
