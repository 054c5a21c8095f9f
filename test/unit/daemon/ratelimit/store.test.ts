/**
 * The sliding-window script against a real Redis, with injected time. Reference values are
 * worked out by hand in comments. Exact logs (the hourly limits): a request made at t counts
 * while now − t < 3600 s. Rings (the daily limit; minute rings here to exercise them): a
 * request counts until its bucket leaves, at (its bucket + W / B) buckets.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRateLimitStore, type CounterSpec, type RateLimitStore } from '../../../../daemon/ratelimit/store.js';
import { deleteKeys, testPrefix } from '../../../helpers/test-daemon.js';
import { startPrivateRedis } from '../../../helpers/redis-server.js';

const MIN = 60_000;
const HOUR = 3_600_000;
/** 2026-03-09T00:00:00Z: a whole number of minutes, hours and days since the epoch. */
const BASE = Date.UTC(2026, 2, 9);

describe('sliding-window store', () => {
  const url = inject('redisUrl');
  const prefix = testPrefix('rl-store');
  let redis: Redis;
  let store: RateLimitStore;
  let n = 0;
  /** A fresh counter key per test. */
  const key = () => `${prefix}k${n++}`;
  const hourly = (limit: number, k = key()): CounterSpec => ({ key: k, limit, windowS: 3600, bucketS: 0 });
  /** An hour in minute buckets: the ring the daily limit uses, at a scale the tests can walk. */
  const ringHour = (limit: number, k = key()): CounterSpec => ({ key: k, limit, windowS: 3600, bucketS: 60 });

  beforeAll(() => {
    redis = new Redis(url);
    store = createRateLimitStore(redis);
  });
  afterAll(async () => {
    redis.disconnect();
    await deleteKeys(url, prefix);
  });

  async function hitTimes(counters: CounterSpec[], times: number, now: number) {
    const results = [];
    for (let i = 0; i < times; i++) results.push(await store.hit(counters, now));
    return results;
  }

  it('admits the 100th request of a 100/h limit and rejects the 101st', async () => {
    const c = hourly(100);
    const results = await hitTimes([c], 100, BASE);
    expect(results.every((r) => r.admitted)).toBe(true);
    expect(results.map((r) => r.counters[0]!.count)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const over = await store.hit([c], BASE);
    expect(over.admitted).toBe(false);
    expect(over.counters[0]!.count).toBe(100);
  });

  it('does not count rejected requests', async () => {
    const c = hourly(3);
    await hitTimes([c], 3, BASE);
    await hitTimes([c], 10, BASE + MIN); // all rejected
    expect((await store.peek([c], BASE + MIN)).counters[0]!.count).toBe(3);
    // At minute 60 the requests of minute 0 have counted for 3,600 s: the 3 slots are back, no more.
    const later = await hitTimes([c], 4, BASE + 60 * MIN);
    expect(later.map((r) => r.admitted)).toEqual([true, true, true, false]);
  });

  it('rolls the window: a request counts for exactly 3600 s, Retry-After shrinking to it', async () => {
    const c = hourly(100);
    const t0 = BASE + 10_000; // 10 s into minute 0
    await hitTimes([c], 100, t0);
    const r0 = await store.hit([c], t0);
    expect(r0.counters[0]!.retryMs).toBe(3_600_000);
    const r30 = await store.hit([c], t0 + 30 * MIN);
    expect(r30.admitted).toBe(false);
    expect(r30.counters[0]!.retryMs).toBe(1_800_000);
    const r60 = await store.hit([c], t0 + 60 * MIN - 1);
    expect(r60.admitted).toBe(false);
    expect(r60.counters[0]!.retryMs).toBe(1);
    const free = await store.hit([c], t0 + 60 * MIN);
    expect(free.admitted).toBe(true);
    expect(free.counters[0]!.count).toBe(1);
  });

  it('slides: requests free up minute by minute, not all at once', async () => {
    const c = hourly(100);
    await hitTimes([c], 40, BASE); // minute 0
    await hitTimes([c], 60, BASE + 10 * MIN); // minute 10
    const r20 = await store.hit([c], BASE + 20 * MIN + 10_000);
    // Freeing one slot needs a minute-0 request to leave (minute 60): 60 min − 20 min 10 s = 2,390 s.
    expect(r20.counters[0]!.retryMs).toBe(2_390_000);
    // At minute 60 exactly 40 slots come back (the minute-0 requests), not 100.
    const at60 = await hitTimes([c], 41, BASE + 60 * MIN);
    expect(at60.filter((r) => r.admitted)).toHaveLength(40);
    // Next free slot: the minute-10 requests leave at minute 70, 10 minutes from now.
    expect(at60[40]!.counters[0]!.retryMs).toBe(10 * MIN);
  });

  it('applies a daily limit in hour buckets', async () => {
    const day: CounterSpec = { key: key(), limit: 3, windowS: 86_400, bucketS: 3600 };
    await hitTimes([day], 2, BASE); // hour 0
    await hitTimes([day], 1, BASE + 5 * HOUR);
    const r5 = await store.hit([day], BASE + 5 * HOUR);
    expect(r5.admitted).toBe(false);
    // The hour-0 bucket leaves at hour 24 (never later than the day): 19 h from hour 5.
    expect(r5.counters[0]!.retryMs).toBe(19 * HOUR);
    expect((await store.hit([day], BASE + 24 * HOUR - 1)).admitted).toBe(false);
    const r24 = await hitTimes([day], 3, BASE + 24 * HOUR);
    expect(r24.map((r) => r.admitted)).toEqual([true, true, false]);
  });

  it('admits exactly the limit under 300 concurrent requests from three connections', async () => {
    const c = hourly(100);
    const clients = [new Redis(url), new Redis(url), new Redis(url)];
    try {
      const stores = clients.map((cl) => createRateLimitStore(cl));
      const all = await Promise.all(Array.from({ length: 300 }, (_, i) => stores[i % 3]!.hit([c], BASE)));
      expect(all.filter((r) => r.admitted)).toHaveLength(100);
      expect((await store.peek([c], BASE)).counters[0]!.count).toBe(100);
    } finally {
      for (const cl of clients) cl.disconnect();
    }
  });

  it('counts all counters or none, and records when each filled', async () => {
    const endpoint = hourly(2);
    const tier = hourly(5);
    await store.hit([endpoint, tier], BASE + 1_000);
    await store.hit([endpoint, tier], BASE + 2_000); // endpoint fills here
    const blocked = await store.hit([endpoint, tier], BASE + 3_000);
    expect(blocked.admitted).toBe(false);
    expect((await store.peek([tier], BASE + 3_000)).counters[0]!.count).toBe(2); // tier untouched
    await hitTimes([tier], 2, BASE + 4_000);
    await store.hit([tier], BASE + 5_000); // tier fills here (5th)
    const both = await store.hit([endpoint, tier], BASE + 6_000);
    expect(both.admitted).toBe(false);
    expect(both.counters.map((s) => s.filledAtMs)).toEqual([BASE + 2_000, BASE + 5_000]);
    expect(both.counters.map((s) => s.count)).toEqual([2, 5]);
  });

  it('falls back to the bucket where the running count passes a lowered limit', async () => {
    const k = key();
    await hitTimes([hourly(10, k)], 3, BASE);
    await hitTimes([hourly(10, k)], 2, BASE + 2 * MIN);
    // Limit lowered to 4 with 5 counted: the 4th oldest request was made at minute 2.
    const r = await store.hit([hourly(4, k)], BASE + 5 * MIN);
    expect(r.admitted).toBe(false);
    expect(r.counters[0]!.filledAtMs).toBe(BASE + 2 * MIN);
    // One more request needs 5 − 4 + 1 = 2 to leave: the 2nd oldest (minute 0) leaves at minute 60.
    expect(r.counters[0]!.retryMs).toBe(55 * MIN);
    // The ring falls back to the bucket where the running count passes the lowered limit.
    const kr = key();
    await hitTimes([ringHour(10, kr)], 3, BASE);
    await hitTimes([ringHour(10, kr)], 2, BASE + 2 * MIN);
    const ring = await store.hit([ringHour(4, kr)], BASE + 5 * MIN);
    expect(ring.counters[0]!.filledAtMs).toBe(BASE + 2 * MIN);
    expect(ring.counters[0]!.retryMs).toBe(55 * MIN);
  });

  it('keeps a ring bounded: one small string per counter, expiring one window after the last write', async () => {
    const c = ringHour(100_000);
    // 200 simulated minutes, 50 requests each: far more requests than buckets.
    for (let m = 0; m < 200; m++) await Promise.all(Array.from({ length: 50 }, () => store.hit([c], BASE + m * MIN)));
    // Only the last 60 minutes count: 60 × 50 = 3,000.
    expect((await store.peek([c], BASE + 199 * MIN)).counters[0]!.count).toBe(3_000);
    // 32-byte header + 60 four-byte slots.
    expect(await redis.strlen(c.key)).toBe(32 + 60 * 4);
    const ttl = await redis.pttl(c.key);
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it('keeps a log bounded: only the requests of the last hour are kept, expiring an hour after the last write', async () => {
    const c = hourly(100_000);
    for (let m = 0; m < 200; m++) await Promise.all(Array.from({ length: 50 }, () => store.hit([c], BASE + m * MIN)));
    // Minutes 140–199 are within 3,600 s of minute 199 (minute 139 is exactly 3,600 s old: gone).
    expect((await store.peek([c], BASE + 199 * MIN)).counters[0]!.count).toBe(3_000);
    expect(await redis.zcard(c.key)).toBe(3_000);
    const ttl = await redis.pttl(c.key);
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it('counts a request made with a clock that went backwards in the newest bucket', async () => {
    const c = ringHour(10);
    await store.hit([c], BASE + 30 * MIN);
    const back = await store.hit([c], BASE + 5 * MIN);
    expect(back.admitted).toBe(true);
    expect(back.counters[0]!.count).toBe(2);
    // Both sit in the minute-30 bucket: free at minute 90, i.e. 85 minutes after minute 5.
    expect(back.counters[0]!.resetMs).toBe(85 * MIN);
  });

  it('uses Redis TIME when no time is given', async () => {
    const before = Date.now();
    const r = await store.hit([hourly(10)]);
    expect(r.nowMs).toBeGreaterThanOrEqual(before - 2_000);
    expect(r.nowMs).toBeLessThanOrEqual(Date.now() + 2_000);
    // One request, made now, leaves exactly an hour from now.
    expect(r.counters[0]!.resetMs).toBe(3_600_000);
  });

  it('reports whether a probe key exists in the same call, counting and writing nothing for it', async () => {
    const c = hourly(2);
    const probe = key();
    // Absent probe: reported false, the request counted as usual
    const first = await store.hit([c], BASE, probe);
    expect(first).toMatchObject({ admitted: true, probed: false });
    expect(first.counters[0]!.count).toBe(1);
    expect(await redis.exists(probe)).toBe(0);
    // Present probe (a revocation mark): reported true, by hit and peek, whether or not admitted
    await redis.set(probe, '1');
    expect(await store.hit([c], BASE, probe)).toMatchObject({ admitted: true, probed: true });
    expect(await store.hit([c], BASE, probe)).toMatchObject({ admitted: false, probed: true });
    const peeked = await store.peek([c], BASE, probe);
    expect(peeked.probed).toBe(true);
    expect(peeked.counters[0]!.count).toBe(2);
    expect(await redis.get(probe)).toBe('1');
    // Without a probe there is no such field
    expect((await store.peek([c], BASE)).probed).toBeUndefined();
  });

  it('reads a cached answer in the counting call: free when found, else counted with the requests for it', async () => {
    const c = hourly(3);
    const cache = { value: key(), asked: key(), ttlMs: 60_000 };
    const revoked = key();
    // Nothing cached: counted like a hit, the first request for the answer
    const first = await store.hitUnlessCached([c], cache, BASE, revoked);
    expect(first).toMatchObject({ admitted: true, probed: false, cached: null, asked: 1 });
    expect(first.counters[0]!.count).toBe(1);
    // Asked again, still not cached: counted, and the second request for it
    const second = await store.hitUnlessCached([c], cache, BASE);
    expect(second).toMatchObject({ admitted: true, cached: null, asked: 2 });
    expect(second.counters[0]!.count).toBe(2);
    // The request counter lives as long as an answer would, from the first request
    const pttl = await redis.pttl(cache.asked);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(60_000);
    // Cached (bytes that are not valid UTF-8 come back unchanged): returned, and nothing counted
    const bytes = Buffer.from([0x7b, 0xff, 0x00, 0x0a, 0xea, 0xb0, 0x80]);
    await redis.set(cache.value, bytes);
    const hit = await store.hitUnlessCached([c], cache, BASE);
    expect(hit.cached?.equals(bytes)).toBe(true);
    expect(hit.asked).toBe(0);
    expect(hit.counters[0]!.count).toBe(2);
    expect(await redis.get(cache.asked)).toBe('2');
    // A refused request is neither counted nor a request for the answer
    await redis.del(cache.value);
    await store.hit([c], BASE);
    const refused = await store.hitUnlessCached([c], cache, BASE);
    expect(refused).toMatchObject({ admitted: false, cached: null, asked: 0 });
    expect(await redis.get(cache.asked)).toBe('2');
  });

  it('rolls a ring forward correctly within the newest bucket and across minute boundaries', async () => {
    const c = ringHour(1000);
    // 3 in minute 0, 2 in minute 1, 1 in minute 59
    for (const [minute, times] of [[0, 3], [1, 2], [59, 1]] as const) await hitTimes([c], times, BASE + minute * MIN + 1000);
    let r = await store.peek([c], BASE + 59 * MIN + 2000);
    expect(r.counters[0]!.count).toBe(6);
    // The oldest bucket (minute 0) frees at minute 60: 60 min − 59 min 2 s
    expect(r.counters[0]!.resetMs).toBe(60 * MIN - (59 * MIN + 2000));
    // At minute 60 minute 0 has left (3 freed); minute 1 is the oldest, freeing at minute 61
    r = await store.hit([c], BASE + 60 * MIN);
    expect(r.counters[0]!.count).toBe(4);
    expect(r.counters[0]!.resetMs).toBe(MIN);
    // At minute 61 minute 1 has left too; the oldest non-empty bucket is minute 59 (frees at 119)
    r = await store.hit([c], BASE + 61 * MIN);
    expect(r.counters[0]!.count).toBe(3);
    expect(r.counters[0]!.resetMs).toBe(119 * MIN - 61 * MIN);
    // Long after everything left: an empty window, reset = the window
    r = await store.peek([c], BASE + 500 * MIN);
    expect(r.counters[0]!).toMatchObject({ count: 0, resetMs: 60 * MIN });
  });

  // On a private Redis: SCRIPT FLUSH and a possibly busy script must not disturb other test files.
  describe.skipIf(!inject('redisServerBin'))('on a private Redis', () => {
    let own: Awaited<ReturnType<typeof startPrivateRedis>>;
    let client: Redis;
    let s: RateLimitStore;
    beforeAll(async () => {
      own = await startPrivateRedis(inject('redisServerBin')!);
      client = new Redis(own.url);
      s = createRateLimitStore(client);
    });
    afterAll(async () => {
      client?.disconnect();
      await own?.stop();
    });

    it('loads the script again after SCRIPT FLUSH (EVALSHA falls back to EVAL)', async () => {
      expect((await s.hit([hourly(5)], BASE)).admitted).toBe(true);
      await client.script('FLUSH');
      expect((await s.hit([hourly(5)], BASE)).admitted).toBe(true);
    });

    it('discards a corrupt value of the right size instead of trusting its header', async () => {
      const c = ringHour(5);
      await client.set(c.key, 'x'.repeat(32 + 60 * 4));
      const r = await s.hit([c], BASE);
      expect(r.admitted).toBe(true);
      expect(r.counters[0]!.count).toBe(1);
    });
  });
});
