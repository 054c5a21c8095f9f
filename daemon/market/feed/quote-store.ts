/**
 * Live quotes in Redis, shared by every daemon instance: every tick updates the
 * live quote GET /stocks/{code}/price answers with, whichever daemon served the request. Two hashes under the deployment prefix:
 * `<prefix>quotes` (field = stock code, value = the last PriceEvent as JSON) and
 * `<prefix>orderbooks` (the last OrderBookEvent). One hash each rather than a key per
 * stock: a whole batch is one HSET, a snapshot of any set of codes one HMGET.
 */
import type { Redis } from 'ioredis';
import type { MarketEvent, OrderBookEvent, PriceEvent } from '../../kernel/events.js';
import { encodeEvent } from '../bus.js';

/** The live quote shape `GET /stocks/{code}/price` serves (the stock routes read this type). */
export interface LiveQuoteView {
  price: number;
  change: number;
  change_percent: number;
  open: number;
  high: number;
  low: number;
  volume: number;
  trading_value: number;
  ts: number;
  /** How a real feed learnt the price (tick, sweep), when it says. */
  quote_source?: string;
  /** The session of the trade outside KRX's regular session (pre_market, after_market), when a real feed says. */
  session?: string;
}

/** Read and write the live quotes. */
export interface QuoteStore {
  /** The last price event of a stock, or null. @throws when Redis is unavailable */
  getQuote(code: string): Promise<PriceEvent | null>;
  /** Last price events of the given codes (codes without a quote are absent). @throws when Redis is unavailable */
  getQuotes(codes: readonly string[]): Promise<Map<string, PriceEvent>>;
  /** Every live quote. @throws when Redis is unavailable */
  getAll(): Promise<PriceEvent[]>;
  /** The last order book of a stock, or null. @throws when Redis is unavailable */
  getBook(code: string): Promise<OrderBookEvent | null>;
  /** Last order books of the given codes. @throws when Redis is unavailable */
  getBooks(codes: readonly string[]): Promise<Map<string, OrderBookEvent>>;
  /**
   * Store the price and order-book events of a batch (later events of a code win); `encoded`: the
   * events as encodeEvent gave them, in the same order. @throws when Redis is unavailable
   */
  put(events: readonly MarketEvent[], encoded?: readonly Buffer[]): Promise<void>;
}

/** Collaborators of the quote store. */
export interface QuoteStoreDeps {
  /** A command connection. */
  redis: Redis;
  /** Prefixed key builder (RedisFactory.key). */
  key(...parts: string[]): string;
}

function parse<T>(raw: string | null | undefined): T | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null; // a corrupt entry reads as "no live quote": the route falls back to the close
  }
}

/** Create the Redis-backed quote store. */
export function createQuoteStore(deps: QuoteStoreDeps): QuoteStore {
  const { redis } = deps;
  const quotesKey = deps.key('quotes');
  const booksKey = deps.key('orderbooks');

  async function many<T>(key: string, codes: readonly string[]): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    if (codes.length === 0) return out;
    const raws = await redis.hmget(key, ...codes);
    codes.forEach((code, i) => {
      const value = parse<T>(raws[i]);
      if (value) out.set(code, value);
    });
    return out;
  }

  return {
    getQuote: async (code) => parse<PriceEvent>(await redis.hget(quotesKey, code)),
    getQuotes: (codes) => many<PriceEvent>(quotesKey, codes),
    async getAll() {
      const all = await redis.hgetall(quotesKey);
      return Object.values(all).map((raw) => parse<PriceEvent>(raw)).filter((q): q is PriceEvent => q !== null);
    },
    getBook: async (code) => parse<OrderBookEvent>(await redis.hget(booksKey, code)),
    getBooks: (codes) => many<OrderBookEvent>(booksKey, codes),
    async put(events, encoded) {
      // Bytes rather than strings: see encodeEvent.
      const quotes = new Map<string, Buffer>();
      const books = new Map<string, Buffer>();
      events.forEach((e, i) => {
        if (e.type === 'price') quotes.set(e.code, encoded?.[i] ?? encodeEvent(e));
        else if (e.type === 'orderbook') books.set(e.code, encoded?.[i] ?? encodeEvent(e));
      });
      if (quotes.size === 0 && books.size === 0) return;
      const pipe = redis.pipeline();
      if (quotes.size) pipe.hset(quotesKey, quotes);
      if (books.size) pipe.hset(booksKey, books);
      for (const [err] of (await pipe.exec()) ?? []) if (err) throw err;
    },
  };
}

/** The fields of a price event that `GET /stocks/{code}/price` shows as the live quote. */
export function toLiveQuote(q: PriceEvent): LiveQuoteView {
  return {
    price: q.price, change: q.change, change_percent: q.change_percent, open: q.open, high: q.high, low: q.low,
    volume: q.volume, trading_value: q.trading_value, ts: q.ts,
    ...(q.source ? { quote_source: q.source } : {}), ...(q.session ? { session: q.session } : {}),
  };
}
