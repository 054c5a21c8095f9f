import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../daemon/infra/logger.js';
import { closeRedis, createRedisFactory, waitReady, type RedisFactory } from '../../../daemon/infra/redis.js';
import { compareStreamIds, createMarketBus, nextStreamId, previousStreamId, type StreamMarketBus } from '../../../daemon/market/bus.js';
import type { MarketEvent } from '../../../daemon/kernel/events.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { priceEvent, statusEvent } from './harness.js';

describe('stream id helpers', () => {
  it('orders ids numerically, also beyond 2^53', () => {
    expect(compareStreamIds('9-0', '10-0')).toBeLessThan(0);
    expect(compareStreamIds('10-2', '10-10')).toBeLessThan(0);
    expect(compareStreamIds('10-10', '10-10')).toBe(0);
    expect(compareStreamIds('5-18446744073709551615', '5-18446744073709551614')).toBeGreaterThan(0);
    // An id without its sequence part is sequence 0.
    expect(compareStreamIds('5', '5-0')).toBe(0);
    expect(compareStreamIds('5', '5-1')).toBeLessThan(0);
    expect(compareStreamIds('6', '5-9')).toBeGreaterThan(0);
  });

  it('steps to the neighbouring possible ids', () => {
    expect(previousStreamId('100-5')).toBe('100-4');
    expect(previousStreamId('100-0')).toBe('99-18446744073709551615');
    expect(previousStreamId('0-0')).toBe('0-0');
    expect(nextStreamId('100-4')).toBe('100-5');
    expect(nextStreamId('99-18446744073709551615')).toBe('100-0');
  });
});

describe('market bus on Redis Streams', () => {
  const url = testRedisUrl();
  const prefix = testPrefix('ws-bus');
  let redis: RedisFactory;
  let producer: StreamMarketBus;
  let consumer: StreamMarketBus;
  const received: [string, MarketEvent][] = [];
  let waiters: (() => void)[] = [];
  const receivedCount = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (received.length >= n ? (resolve(), true) : false);
      if (!check()) waiters.push(() => void check());
    });

  beforeAll(async () => {
    const logger = createLogger('silent');
    redis = createRedisFactory({ url, prefix, logger });
    producer = createMarketBus({ redis, logger, maxLen: 50 });
    consumer = createMarketBus({ redis, logger, maxLen: 50 });
    consumer.subscribe((id, event) => {
      received.push([id, event]);
      for (const w of waiters) w();
    });
    await consumer.ready();
  });
  afterAll(async () => {
    await producer.close();
    await consumer.close();
    await deleteKeys(url, prefix);
  });

  it('delivers published events to a subscriber on another connection, in order, with their ids', async () => {
    const one = await producer.publish(priceEvent('005930', 1001));
    const many = await producer.publishMany([priceEvent('000660', 1002), statusEvent('KOSPI', 'open')]);
    await receivedCount(3);
    expect(received.map(([id]) => id)).toEqual([one, ...many]);
    expect(received.map(([, e]) => e.type)).toEqual(['price', 'price', 'market_status']);
    expect(received[0]![1]).toEqual(priceEvent('005930', 1001));
    expect(consumer.position()).toBe(many[1]);
  });

  it('replays strictly after an id and reports the oldest id kept', async () => {
    const ids = await producer.publishMany([1, 2, 3].map((i) => priceEvent('035720', 2000 + i)));
    const after = await producer.range(ids[0]!, 10);
    expect(after.map(([id]) => id)).toEqual(ids.slice(1));
    expect(after.map(([, e]) => (e as { price: number }).price)).toEqual([2002, 2003]);
    expect(await producer.range(ids[0]!, 1)).toHaveLength(1);
    const first = await producer.firstId();
    expect(first).not.toBeNull();
    expect(compareStreamIds(first!, ids[0]!)).toBeLessThanOrEqual(0);
  });

  it('keeps the history bounded (MAXLEN ~) and counts what it removed', async () => {
    await producer.publishMany(Array.from({ length: 400 }, (_, i) => priceEvent('005930', i)));
    const commands = redis.connect('command', 'bus-test');
    await waitReady(commands, 5000);
    try {
      const len = await commands.xlen(redis.key('events'));
      // "~" trims whole radix-tree nodes (100 entries by default): bounded, though not exactly 50.
      expect(len).toBeLessThan(50 + 2 * 100);
      // Added so far in this file: 3 + 3 + 400 = 406 entries; all but `len` were removed.
      expect(await producer.removedCount()).toBe(406 - len);
    } finally {
      await closeRedis(commands);
    }
  });

  it('closes idempotently', async () => {
    const logger = createLogger('silent');
    const bus = createMarketBus({ redis, logger, maxLen: 10 });
    bus.subscribe(() => undefined);
    await bus.ready();
    await bus.close();
    await bus.close();
  });
});
