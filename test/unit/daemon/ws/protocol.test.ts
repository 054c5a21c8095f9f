import { describe, expect, it } from 'vitest';
import { batchFrame, finalize, parseClientMessage, serverMessages } from '../../../../daemon/ws/protocol.js';

const T = Date.parse('2025-03-04T01:02:03.456Z');

describe('parseClientMessage', () => {
  it('accepts every client message type of the spec', () => {
    expect(parseClientMessage('{"type":"subscribe","subscription_type":"sector","targets":["Internet"]}')).toEqual({
      ok: true, message: { type: 'subscribe', subscription_type: 'sector', targets: ['Internet'] },
    });
    expect(parseClientMessage('{"type":"unsubscribe","subscription_type":"stock","targets":["005930"]}').ok).toBe(true);
    expect(parseClientMessage('{"type":"ping","timestamp":"2025-03-04T00:00:00Z"}')).toEqual({ ok: true, message: { type: 'ping' } });
    expect(parseClientMessage('{"type":"refresh_token","token":"abc"}').ok).toBe(true);
    expect(parseClientMessage('{"type":"reconnect","session_id":"0b6a8d4e-8f39-4d7c-9a57-1d2f3c4b5a69"}').ok).toBe(true);
  });

  it('explains malformed JSON, non-objects, a missing or unknown type and bad fields', () => {
    expect(parseClientMessage('{')).toMatchObject({ ok: false, message: 'Malformed JSON' });
    expect(parseClientMessage('"ping"')).toMatchObject({ ok: false, message: 'A message must be a JSON object' });
    expect(parseClientMessage('null')).toMatchObject({ ok: false, message: 'A message must be a JSON object' });
    expect(parseClientMessage('{"targets":[]}')).toMatchObject({ ok: false, message: 'Missing message type', details: { field: 'type' } });
    expect(parseClientMessage('{"type":"sell"}')).toMatchObject({ ok: false, details: { type: 'sell' } });
    const bad = parseClientMessage('{"type":"subscribe","subscription_type":"stock","targets":[]}');
    expect(bad).toMatchObject({ ok: false, message: 'Invalid subscribe message' });
    expect(bad.ok === false && (bad.details.issues as { field: string }[])[0]!.field).toBe('targets');
    expect(parseClientMessage('{"type":"reconnect","session_id":"nope"}')).toMatchObject({ ok: false });
    expect(parseClientMessage('{"type":"refresh_token"}')).toMatchObject({ ok: false });
  });
});

describe('server messages', () => {
  it('appends the sequence when finalized, giving valid JSON with type and timestamp', () => {
    const text = finalize(serverMessages.pong(T), 7);
    expect(JSON.parse(text)).toEqual({ type: 'pong', timestamp: '2025-03-04T01:02:03.456Z', sequence: 7 });
  });

  it('builds price_update with only the spec fields, timestamped at the feed', () => {
    const m = serverMessages.priceUpdate({
      type: 'price', code: '005930', name: 'Samsung', market: 'KOSPI', sector: 'IT', price: 71000, change: 500, change_percent: 0.71,
      volume: 1200, trading_value: 85_200_000, open: 70500, high: 71000, low: 70400, prev_close: 70500, ts: T,
    }, '5-0');
    expect(JSON.parse(finalize(m, 1))).toEqual({
      type: 'price_update', code: '005930', name: 'Samsung', price: 71000, change: 500, change_percent: 0.71, volume: 1200,
      timestamp: '2025-03-04T01:02:03.456Z', sequence: 1,
    });
    expect(m.key).toBe('p:005930');
    expect(m.streamId).toBe('5-0');
  });

  it('builds error, reconnected and token_refreshed with their fields', () => {
    expect(JSON.parse(finalize(serverMessages.error('RATE_LIMIT_EXCEEDED', 'slow down', { rate_limit: 100 }, T), 3))).toEqual({
      type: 'error', code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', details: { rate_limit: 100 }, timestamp: '2025-03-04T01:02:03.456Z', sequence: 3,
    });
    const r = serverMessages.reconnected('s-1', { stock: ['005930'], market: [], sector: [] }, { missed_messages_count: 2, missed_messages_estimated: false, replayed_messages: 2, history_truncated: false, snapshot_messages: 0, restored_from: 'saved' }, T);
    expect(JSON.parse(finalize(r, 9))).toMatchObject({ type: 'reconnected', session_id: 's-1', restored_subscriptions: { stock: ['005930'] }, missed_messages_count: 2, sequence: 9 });
    // exp 1741050123 s = 2025-03-04T01:02:03Z
    expect(JSON.parse(finalize(serverMessages.tokenRefreshed('u1', 1741050123, T), 1))).toMatchObject({ user_id: 'u1', expires_at: '2025-03-04T01:02:03.000Z' });
  });

  it('wraps finalized messages in a batch frame whose own sequence comes first', () => {
    const inner = [finalize(serverMessages.pong(T), 12), finalize(serverMessages.pong(T), 13)];
    expect(JSON.parse(batchFrame(11, inner, T))).toEqual({
      type: 'batch', sequence: 11, batch_size: 2, timestamp: '2025-03-04T01:02:03.456Z',
      messages: [
        { type: 'pong', timestamp: '2025-03-04T01:02:03.456Z', sequence: 12 },
        { type: 'pong', timestamp: '2025-03-04T01:02:03.456Z', sequence: 13 },
      ],
    });
  });
});
