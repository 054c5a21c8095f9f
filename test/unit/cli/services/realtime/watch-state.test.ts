import { describe, expect, it } from 'vitest';
import { initialWatchState, reduceWatch, type WatchState } from '../../../../../cli/services/realtime/watch-state.js';
import { bookLines, connectionBadge, marketLine, quoteTable } from '../../../../../cli/services/realtime/watch-view.js';
import type { WsClientEvent } from '../../../../../cli/services/transport/ws-client.js';

const msg = (message: Record<string, unknown>): WsClientEvent => ({ type: 'message', message: message as never });
const price = (code: string, p: number, change: number, name = `N${code}`) =>
  msg({ type: 'price_update', code, name, price: p, change, change_percent: change / 10, volume: 100, timestamp: '2025-03-04T01:02:03.000Z', sequence: 1 });
const fold = (state: WatchState, events: WsClientEvent[], limits = { historyLength: 3, alerts: 2, notices: 2 }) => events.reduce((s, e) => reduceWatch(s, e, limits), state);

describe('watch state', () => {
  it('starts with one row per requested code, seeded when a quote is known', () => {
    const s = initialWatchState(['005930', '000660'], [{ code: '000660', name: 'SK hynix', price: 200_000, change: -500, change_percent: -0.25, volume: 10 }]);
    expect(s.rows.map((r) => [r.code, r.name, r.price, r.history])).toEqual([['005930', '', null, []], ['000660', 'SK hynix', 200_000, [200_000]]]);
  });

  it('updates rows from price updates, keeping the last N prices for the sparkline', () => {
    const s = fold(initialWatchState(['005930']), [price('005930', 1, 1), price('005930', 2, 2), price('005930', 3, 3), price('005930', 4, 4)]);
    expect(s.rows).toHaveLength(1);
    expect(s.rows[0]).toMatchObject({ code: '005930', name: 'N005930', price: 4, change: 4, change_percent: 0.4, volume: 100, history: [2, 3, 4] });
    expect(s.messages).toBe(4);
  });

  it('puts stocks from market or sector subscriptions after the requested ones, in code order', () => {
    const s = fold(initialWatchState(['900000']), [price('300000', 1, 0), price('100000', 1, 0), price('200000', 1, 0), price('900000', 1, 0)]);
    expect(s.rows.map((r) => r.code)).toEqual(['900000', '100000', '200000', '300000']);
  });

  it('keeps the latest order book per stock and the status per market', () => {
    const s = fold(initialWatchState([]), [
      msg({ type: 'orderbook_update', code: 'A', bids: [{ price: 99, quantity: 1 }], asks: [{ price: 101, quantity: 2 }] }),
      msg({ type: 'market_status', market: 'KOSPI', status: 'open' }),
      msg({ type: 'market_status', market: 'KOSDAQ', status: 'closing_auction' }),
      msg({ type: 'orderbook_update', code: 'A', bids: [{ price: 98, quantity: 3 }], asks: [] }),
    ]);
    expect(s.books.A?.bids).toEqual([{ price: 98, quantity: 3 }]);
    expect(marketLine(s.markets)).toBe('KOSDAQ closing auction · KOSPI open');
  });

  it('lists alerts newest first, at most the limit, and errors as notices', () => {
    const alert = (threshold: number) => msg({ type: 'alert', code: 'A', alert_type: 'price_above', threshold, current_price: 10, message: `m${threshold}` });
    const s = fold(initialWatchState([]), [alert(1), alert(2), alert(3), msg({ type: 'error', code: 'SUBSCRIPTION_FAILED', message: 'Unknown stock code(s): 999999' })]);
    expect(s.alerts.map((a) => a.threshold)).toEqual([3, 2]);
    expect(s.notices).toEqual(['SUBSCRIPTION_FAILED: Unknown stock code(s): 999999']);
  });

  it('follows the connection and counts sequence problems', () => {
    const s = fold(initialWatchState([]), [
      { type: 'status', status: { state: 'restored', sessionId: 'S', missed: 4, estimated: false, historyTruncated: false } },
      { type: 'anomaly', anomaly: { kind: 'gap', expected: 3, got: 5 } },
    ]);
    expect(connectionBadge(s.connection)).toEqual({ text: 'restored with 4 missed', healthy: true });
    expect(connectionBadge({ state: 'restored', sessionId: 'S', missed: 9000, estimated: true, historyTruncated: true })).toEqual({ text: 'restored with ~9000 missed (snapshot sent)', healthy: true });
    expect(s.anomalies).toHaveLength(1);
  });
});

describe('watch view', () => {
  it('formats the quote table with the Korean colours: up red, down blue', () => {
    const s = fold(initialWatchState(['A', 'B']), [price('A', 72_000, 1000), price('B', 50_000, -250), price('A', 72_500, 1500)], { historyLength: 10, alerts: 1, notices: 1 });
    const t = quoteTable(s.rows, 10);
    expect(t.headers).toEqual(['CODE', 'NAME', 'PRICE', 'CHANGE', 'CHG %', 'VOLUME', 'TREND']);
    expect(t.rows[0]!.map((c) => c.text)).toEqual(['A', 'NA', '72,500', '+1,500', '+150.00%', '100', '▁█']);
    expect(t.rows[0]![2]!.move).toBe('up');
    expect(t.rows[1]!.slice(2, 5).map((c) => [c.text, c.move])).toEqual([['50,000', 'down'], ['-250', 'down'], ['-25.00%', 'down']]);
  });

  it('lays out the book with asks above (highest first) and bids below (best first)', () => {
    const book = { bids: [{ price: 99, quantity: 5 }, { price: 98, quantity: 6 }, { price: 97, quantity: 7 }], asks: [{ price: 101, quantity: 1 }, { price: 102, quantity: 2 }, { price: 103, quantity: 3 }], timestamp: null };
    expect(bookLines(book, 2).map((l) => `${l.side} ${l.price} ${l.quantity} ${l.move}`)).toEqual(['ask 102 2 down', 'ask 101 1 down', 'bid 99 5 up', 'bid 98 6 up']);
    expect(bookLines(undefined, 5)).toEqual([]);
  });

  it('describes every connection state', () => {
    expect(connectionBadge({ state: 'reconnecting', attempt: 2, delayMs: 500, reason: 'connection closed (1006)' }).text).toBe('reconnecting in 500ms (attempt 2): connection closed (1006)');
    // The reconnect wait counts down as the screen redraws (it did not tick)
    const waiting = { state: 'reconnecting', attempt: 3, delayMs: 5000, reason: 'connection closed (1006)', since: 10_000 } as const;
    expect([10_000, 11_200, 13_900, 14_600, 16_000].map((now) => /in (\S+)/.exec(connectionBadge(waiting, now).text)![1])).toEqual(['5s', '4s', '2s', '400ms', '0ms']);
    expect(connectionBadge({ state: 'connected', sessionId: 'S', restoreFailed: 'expired' })).toEqual({ text: 'connected, new session (old one expired)', healthy: true });
    expect(connectionBadge({ state: 'connecting', attempt: 1 }).healthy).toBe(false);
  });
});
