import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { Redis } from 'ioredis';
import type { OrderBookEvent, PriceEvent } from '../../../../../daemon/kernel/events.js';
import { createQuoteStore, toLiveQuote, type QuoteStore } from '../../../../../daemon/market/feed/quote-store.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../../../helpers/test-daemon.js';

const price = (code: string, p: number, ts: number): PriceEvent => ({
  type: 'price', code, name: `N${code}`, market: 'KOSPI', sector: null, price: p, change: p - 10_000, change_percent: ((p - 10_000) / 100),
  volume: 10, trading_value: 10 * p, open: p, high: p, low: p, prev_close: 10_000, ts,
});
const book = (code: string, bid: number): OrderBookEvent => ({
  type: 'orderbook', code, market: 'KOSPI', sector: null, bids: [{ price: bid, quantity: 3 }], asks: [{ price: bid + 10, quantity: 4 }], ts: 1,
});

describe('quote store on a real Redis', () => {
  const url = testRedisUrl();
  const prefix = testPrefix('quote-store');
  let redis: Redis;
  let store: QuoteStore;
  beforeAll(() => {
    redis = new Redis(url);
    store = createQuoteStore({ redis, key: (...p) => prefix + p.join(':') });
  });
  afterAll(async () => {
    redis.disconnect();
    await deleteKeys(url, prefix);
  });

  it('round-trips quotes and books; the last event of a code in a batch wins', async () => {
    await store.put([price('000001', 10_100, 1), book('000001', 10_100), price('000002', 9_900, 1), price('000001', 10_200, 2)]);
    expect(await store.getQuote('000001')).toEqual(price('000001', 10_200, 2));
    expect(await store.getBook('000001')).toEqual(book('000001', 10_100));
    const many = await store.getQuotes(['000002', '000001', '000404']);
    expect([...many.keys()].sort()).toEqual(['000001', '000002']);
    expect(many.get('000002')!.price).toBe(9_900);
    expect((await store.getAll()).map((q) => q.code).sort()).toEqual(['000001', '000002']);
    expect(await store.getQuote('000404')).toBeNull();
    expect((await store.getBooks(['000001', '000002'])).size).toBe(1);
  });

  it('is shared: a second store on another connection reads what the first wrote', async () => {
    const other = new Redis(url);
    try {
      await store.put([price('000003', 10_050, 5)]);
      const seen = await createQuoteStore({ redis: other, key: (...p) => prefix + p.join(':') }).getQuote('000003');
      expect(seen?.price).toBe(10_050);
    } finally {
      other.disconnect();
    }
  });

  it('keeps everything under the prefix', async () => {
    expect((await redis.keys(`${prefix}*`)).sort()).toEqual([`${prefix}orderbooks`, `${prefix}quotes`]);
  });

  it('toLiveQuote exposes the price fields of the route', () => {
    expect(toLiveQuote(price('000001', 10_200, 2))).toEqual({
      price: 10_200, change: 200, change_percent: 2, open: 10_200, high: 10_200, low: 10_200, volume: 10, trading_value: 102_000, ts: 2,
    });
  });
});
