/**
 * The result cache shared by daemons, over a real Redis: an answer one daemon computed and stored
 * (as bytes: the summary's JSON, a newline, the page's JSON) is answered by another daemon whose
 * own in-process layer never saw it, with the same stocks byte for byte and the same summary.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseConfig } from '../../../daemon/config.js';
import { createScreenService, type ResultCache, type ScreenService } from '../../../daemon/screening/engine/screen-service.js';
import type { SnapshotService } from '../../../daemon/screening/engine/snapshot-service.js';
import { buildItem } from '../../../daemon/screening/engine/query.js';
import { deleteKeys, testPrefix } from '../../helpers/test-daemon.js';
import { fixtureSnapshot, KNOWN } from '../../unit/daemon/screening/fixture.js';

describe('screen answers through the shared Redis cache', () => {
  const url = inject('redisUrl');
  const prefix = testPrefix('screen-shared-cache');
  let redis: Redis;
  let cache: ResultCache;
  const snapshot = fixtureSnapshot();
  const snapshots = { current: () => snapshot } as unknown as SnapshotService;
  const daemon = (): ScreenService =>
    createScreenService({ snapshot: snapshots, cache, ttlSeconds: 60, knownFields: KNOWN, limits: parseConfig({}).screen_limits });

  beforeAll(() => {
    redis = new Redis(url);
    cache = {
      get: (key) => redis.getBuffer(`${prefix}${key}`),
      set: async (key, value, ttl) => void (await redis.set(`${prefix}${key}`, value, 'EX', ttl)),
    };
  });
  afterAll(async () => {
    redis.disconnect();
    await deleteKeys(url, prefix);
  });

  it("answers another daemon's stored answer with the same bytes", async () => {
    // Given one daemon that computed a screen (Korean names: multi-byte UTF-8 in the bytes stored)
    const body = { filters: { per: { max: 20 } }, expression: 'roe > 0', sort: [{ field: 'roe', direction: 'desc' }], fields: ['industry'] };
    const first = daemon();
    const computed = await first.run(first.compile(body, 'trusted'));
    expect(computed.cached).toBe(false);
    // When a second daemon, which never ran it, looks the same screen up
    const second = daemon();
    const found = await second.lookup(second.compile(body, 'trusted'));
    // Then it finds it in Redis: the same summary and the same stocks, byte for byte
    expect(found).not.toBeNull();
    const { stocks, cached, ...summary } = found!;
    const { stocks: computedStocks, cached: _, ...computedSummary } = computed;
    expect(cached).toBe(true);
    expect(summary).toEqual(computedSummary);
    expect(stocks.equals(computedStocks)).toBe(true);
    // And those bytes are the page's items as JSON
    const codes = (JSON.parse(stocks.toString('utf8')) as { code: string }[]).map((i) => i.code);
    expect(codes.length).toBe(computed.total);
    const columns = Object.keys((JSON.parse(stocks.toString('utf8')) as Record<string, unknown>[])[0]!);
    expect(stocks.toString('utf8')).toBe(JSON.stringify(codes.map((c) => buildItem(snapshot, snapshot.rowByCode.get(c)!, columns))));
  });
});
