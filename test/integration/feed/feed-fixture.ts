/**
 * Real feeds on a real Redis for the feed tests: one key prefix per test file, a real
 * market bus, silent logs, and a few stocks. Everything created is closed and its keys
 * deleted by `close()`.
 */
import type { Redis } from 'ioredis';
import { createManualClock, type Clock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { closeRedis, createRedisFactory, waitReady, type RedisFactory } from '../../../daemon/infra/redis.js';
import { createMarketBus, type StreamMarketBus } from '../../../daemon/market/bus.js';
import type { PriceEvent } from '../../../daemon/kernel/events.js';
import { createPriceFeed, type PriceFeed, type PriceFeedOptions } from '../../../daemon/market/feed/feed.js';
import { createQuoteStore, type QuoteStore } from '../../../daemon/market/feed/quote-store.js';
import type { FeedStock } from '../../../daemon/market/feed/types.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';

/** A trading instant: Monday 2026-03-09 10:00 KST. */
export const TRADING_NOW = Date.parse('2026-03-09T10:00:00+09:00');

/** 005930 prev close 70,000 → limits 49,000–91,000; 035720 prev close 40,000 → 28,000–52,000. */
export const STOCKS: FeedStock[] = [
  { code: '005930', name: '삼성전자', market: 'KOSPI', sector: 'Semiconductors', prev_close: 70_000 },
  { code: '035720', name: '카카오', market: 'KOSPI', sector: 'Internet', prev_close: 40_000 },
  { code: '091990', name: '셀트리온헬스케어', market: 'KOSDAQ', sector: 'Pharma', prev_close: 1_995 },
];

/** Resolves the n-th time `notify` is called. */
export function countdown<T = void>(n: number): { notify(value: T): void; done: Promise<T> } {
  let left = n;
  let resolve!: (v: T) => void;
  const done = new Promise<T>((r) => (resolve = r));
  return { notify: (v) => void (--left === 0 && resolve(v)), done };
}

/** Shared Redis, bus and quote store of one test file. */
export interface FeedFixture {
  url: string;
  prefix: string;
  redis: RedisFactory;
  commands: Redis;
  bus: StreamMarketBus;
  quotes: QuoteStore;
  clock: Clock;
  /** A feed on its own command connection (so a test can cut it); stopped by close(). */
  feed(options: Partial<PriceFeedOptions>): Promise<{ feed: PriceFeed; commands: Redis; ticks: PriceEvent[][] }>;
  close(): Promise<void>;
}

/** Open the fixture. */
export async function openFeedFixture(label: string): Promise<FeedFixture> {
  const url = testRedisUrl();
  const prefix = testPrefix(label);
  const logger = createLogger(process.env.FEED_TEST_LOG ?? 'silent');
  const redis = createRedisFactory({ url, prefix, logger });
  const commands = redis.connect('command', 'test');
  await waitReady(commands, 5_000);
  const bus = createMarketBus({ redis, logger, maxLen: 100_000 });
  const quotes = createQuoteStore({ redis: commands, key: redis.key });
  const clock = createManualClock(TRADING_NOW);
  const owned: { feed: PriceFeed; commands: Redis }[] = [];
  return {
    url, prefix, redis, commands, bus, quotes, clock,
    async feed(options) {
      const own = redis.connect('command', 'test-feed');
      await waitReady(own, 5_000);
      const ticks: PriceEvent[][] = [];
      const onTick = options.onTick;
      const feed = createPriceFeed({
        mode: 'ingest', bus, quotes: createQuoteStore({ redis: own, key: redis.key }), redis, commands: own, clock,
        marketClock: { isTrading: () => true }, intervalMs: 20, updatesPerStockPerSecond: 50, loadStocks: async () => STOCKS, logger, seed: 1,
        ...options,
        onTick: async (events) => {
          ticks.push(events);
          await onTick?.(events);
        },
      });
      owned.push({ feed, commands: own });
      return { feed, commands: own, ticks };
    },
    async close() {
      for (const o of owned) {
        await o.feed.stop();
        await closeRedis(o.commands);
      }
      await bus.close();
      await closeRedis(commands);
      await deleteKeys(url, prefix);
    },
  };
}
