/**
 * Pre-encoded frames written straight to a real `ws` socket (frame-writer.ts): the direct
 * path is installed with ws 8's internals, text frames of every header size arrive intact,
 * and with deflate negotiated a frame over the threshold still goes out compressed (RSV1)
 * through ws, in order with the direct ones.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { encodeFrame } from '../../../daemon/ws/frame-encoder.js';
import { createFrameWriter } from '../../../daemon/ws/frame-writer.js';
import { serverMessages } from '../../../daemon/ws/protocol.js';

const T = Date.parse('2026-11-20T01:00:00.000Z');
const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function pair(perMessageDeflate: false | { threshold: number }) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: perMessageDeflate && { ...perMessageDeflate, serverNoContextTakeover: true } });
  servers.push(wss);
  await once(wss, 'listening');
  const accepted = once(wss, 'connection');
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const received: { text: string; compressed: boolean }[] = [];
  // The receiver records whether each frame had RSV1 set (permessage-deflate) before decoding it.
  client.on('open', () => {
    const receiver = (client as unknown as { _receiver: { _compressed: boolean; on(e: string, f: () => void): void } })._receiver;
    client.on('message', (data: Buffer) => received.push({ text: data.toString('utf8'), compressed: receiver._compressed }));
  });
  const [server] = (await accepted) as [WebSocket];
  await once(client, 'open').catch(() => undefined);
  return { server, client, received };
}

const until = async (cond: () => boolean, c: WebSocket) => {
  while (!cond()) await once(c, 'message');
};

describe('frame writer', () => {
  it('writes text frames with 2-, 4- and 10-byte headers directly, bytes intact', async () => {
    const { server, client, received } = await pair(false);
    const writer = createFrameWriter(server);
    expect(writer.direct).toBe(true);
    const sizes = [10, 200, 70_000];
    const messages = sizes.map((n) => serverMessages.error('INVALID_MESSAGE', 'é'.repeat(n), {}, T));
    messages.forEach((m, i) => writer.write(encodeFrame([m], i + 1, false, T)));
    await until(() => received.length === 3, client);
    expect(received.map((r) => JSON.parse(r.text) as { sequence: number; message: string })).toEqual(
      messages.map((_, i) => expect.objectContaining({ sequence: i + 1, message: 'é'.repeat(sizes[i]!) })),
    );
    client.close();
  });

  it('leaves frames over the deflate threshold to ws (compressed), in order with direct ones', async () => {
    const { server, client, received } = await pair({ threshold: 1024 });
    const writer = createFrameWriter(server);
    expect(writer.direct).toBe(true);
    const small = serverMessages.pong(T);
    const big = Array.from({ length: 40 }, (_, i) => serverMessages.priceUpdate({ type: 'price', code: String(i).padStart(6, '0'), name: '삼성전자', market: 'KOSPI', sector: null, price: 1000 + i, change: 1, change_percent: 0.1, volume: 5, trading_value: 5, open: 1, high: 1, low: 1, prev_close: 1, ts: T }));
    writer.write(encodeFrame([small], 1, false, T));
    writer.write(encodeFrame(big, 2, true, T));
    writer.write(encodeFrame([small], 43, false, T));
    await until(() => received.length === 3, client);
    expect(received.map((r) => r.compressed)).toEqual([false, true, false]);
    const batch = JSON.parse(received[1]!.text) as { sequence: number; messages: { sequence: number }[] };
    expect([batch.sequence, ...batch.messages.map((m) => m.sequence), (JSON.parse(received[2]!.text) as { sequence: number }).sequence]).toEqual(
      Array.from({ length: 42 }, (_, i) => i + 2),
    );
    client.close();
  });
});
