import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { isAppError, type AppError } from '../../../daemon/errors.js';
import type { MarketEvent, MarketStatusEvent, PriceEvent } from '../../../daemon/kernel/events.js';
import type { PriceFeed } from '../../../daemon/market/feed/feed.js';
import { TICK_STREAM_GROUP } from '../../../daemon/market/feed/tick-stream.js';
import { countdown, openFeedFixture, TRADING_NOW, type FeedFixture } from './feed-fixture.js';

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (isAppError(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

const busEvents = async (f: FeedFixture): Promise<MarketEvent[]> => (await f.bus.range('0', 10_000)).map(([, e]) => e);

describe('price feed: ingest path', () => {
  let f: FeedFixture;
  beforeEach(async () => void (f = await openFeedFixture('feed-ingest')));
  afterEach(() => f.close());

  it('writes the live quote, runs onTick, then publishes on the bus', async () => {
    // Given an ingest-mode feed whose onTick sees what the quote store already holds
    const seenInQuote: (number | undefined)[] = [];
    const { feed, ticks } = await f.feed({ mode: 'ingest', consumeStream: false, onTick: async () => void seenInQuote.push((await f.quotes.getQuote('005930'))?.price) });
    await feed.start();
    // When a batch with an order book is ingested
    const result = await feed.ingest({
      ticks: [
        { code: '005930', price: 71_500, volume: 1_000, bids: [{ price: 71_500, quantity: 10 }], asks: [{ price: 71_600, quantity: 5 }] },
        { code: '035720', price: 39_950, volume: 20 },
      ],
    });
    // Then both ticks are accepted, the quote is live, alerts ran after the quote write, and the bus carries every event
    expect(result).toEqual({ accepted: 2 });
    expect(await f.quotes.getQuote('005930')).toMatchObject({ price: 71_500, change: 1_500, volume: 1_000, trading_value: 71_500_000, ts: TRADING_NOW });
    expect(await f.quotes.getBook('005930')).toMatchObject({ bids: [{ price: 71_500, quantity: 10 }] });
    expect(ticks.map((batch) => batch.map((e) => e.code))).toEqual([['005930', '035720']]);
    expect(seenInQuote).toEqual([71_500]);
    expect((await busEvents(f)).map((e) => `${e.type}:${'code' in e ? e.code : ''}`)).toEqual(['price:005930', 'orderbook:005930', 'price:035720']);
  });

  it('rejects a bad batch with 400 details and applies none of it', async () => {
    const { feed, ticks } = await f.feed({ mode: 'ingest', consumeStream: false });
    await feed.start();
    const err = await rejection(feed.ingest({ ticks: [{ code: '005930', price: 71_500, volume: 1 }, { code: '005930', price: 71_550, volume: 2 }] }));
    expect(err.status).toBe(400);
    expect(Object.keys(err.details)).toEqual(['ticks[1].price']);
    expect(await f.quotes.getQuote('005930')).toBeNull();
    expect(await busEvents(f)).toEqual([]);
    expect(ticks).toEqual([]);
  });

  it('validates the day volume against the live quote written by an earlier request', async () => {
    const { feed } = await f.feed({ mode: 'ingest', consumeStream: false });
    await feed.start();
    await feed.ingest({ code: '005930', price: 71_500, volume: 5_000 });
    const err = await rejection(feed.ingest({ code: '005930', price: 71_600, volume: 4_999 }));
    expect(err.details).toHaveProperty('volume');
  });

  it('answers 503 when the feed is off', async () => {
    const { feed } = await f.feed({ mode: 'off' });
    await feed.start();
    const err = await rejection(feed.ingest({ code: '005930', price: 71_500, volume: 1 }));
    expect(err.status).toBe(503);
  });

  it('applies ticks appended to the ticks:in stream, and acknowledges a bad entry without applying it', async () => {
    // Given the consumer group exists (a bridge may create it; the feed creates it at the end otherwise)
    const streamKey = f.redis.key('ticks:in');
    await f.commands.xgroup('CREATE', streamKey, TICK_STREAM_GROUP, '$', 'MKSTREAM');
    const first = countdown<PriceEvent[]>(1);
    const second = countdown<PriceEvent[]>(2);
    const { feed } = await f.feed({ mode: 'ingest', onTick: async (e) => (first.notify(e), second.notify(e)) });
    await feed.start();
    // When a bridge appends an off-grid tick, then a JSON tick, then a flat-field tick
    const badId = await f.commands.xadd(streamKey, '*', 'code', '005930', 'price', '71550', 'volume', '1');
    await f.commands.xadd(streamKey, '*', 'tick', JSON.stringify({ code: '005930', price: 71_500, volume: 10 }));
    expect((await first.done).map((e) => e.price)).toEqual([71_500]);
    await f.commands.xadd(streamKey, '*', 'code', '035720', 'price', '40100', 'volume', '7');
    expect((await second.done).map((e) => e.code)).toEqual(['035720']);
    // Then the good ones are live, and the bad one is acknowledged (not left pending for a retry)
    expect((await f.quotes.getQuote('005930'))?.volume).toBe(10);
    const pending = (await f.commands.xpending(streamKey, TICK_STREAM_GROUP, '-', '+', 10)) as [string][];
    expect(pending.map(([id]) => id)).not.toContain(badId);
  });

  it('publishes each market_status transition once, however many daemons announce it', async () => {
    const a = await f.feed({ mode: 'off' });
    const b = await f.feed({ mode: 'off' });
    const events: MarketStatusEvent[] = [
      { type: 'market_status', market: 'KOSPI', status: 'open', ts: TRADING_NOW },
      { type: 'market_status', market: 'KOSDAQ', status: 'open', ts: TRADING_NOW + 3 },
    ];
    expect(await a.feed.publishStatus(events)).toBe(2);
    expect(await b.feed.publishStatus(events.map((e) => ({ ...e, ts: e.ts + 50 })))).toBe(0);
    expect((await busEvents(f)).map((e) => (e.type === 'market_status' ? `${e.market}:${e.status}` : e.type))).toEqual(['KOSPI:open', 'KOSDAQ:open']);
  });
});

describe('price feed: simulator leadership across daemons', () => {
  let f: FeedFixture;
  beforeEach(async () => void (f = await openFeedFixture('feed-leader')));
  afterEach(() => f.close());

  type Name = 'a' | 'b';
  /** Two simulator feeds on one Redis with a short lease; resolves once one of them leads and has stepped 3 times. */
  async function twoFeeds() {
    const leading = countdown<Name>(1);
    const firstLead = { a: countdown(1), b: countdown(1) };
    const stepped = { a: countdown(3), b: countdown(3) };
    const listeners: Record<Name, ((events: PriceEvent[]) => void) | undefined> = { a: undefined, b: undefined };
    const make = (name: Name) =>
      f.feed({
        mode: 'simulator', consumeStream: false, leaseMs: 400, renewMs: 50, instanceId: name,
        onLeadership: (leader) => {
          if (!leader) return;
          leading.notify(name);
          firstLead[name].notify();
        },
        onTick: async (events) => {
          stepped[name].notify();
          listeners[name]?.(events);
        },
      });
    const feeds = { a: await make('a'), b: await make('b') };
    await Promise.all([feeds.a.feed.start(), feeds.b.feed.start()]);
    const leaderName = await leading.done;
    await stepped[leaderName].done;
    const followerName: Name = leaderName === 'a' ? 'b' : 'a';
    return {
      leader: feeds[leaderName],
      follower: feeds[followerName],
      /** The follower's first leadership: the takeover. */
      followerLeads: firstLead[followerName].done,
      followerStepped: stepped[followerName].done,
      onLeaderTick: (fn: (events: PriceEvent[]) => void) => void (listeners[leaderName] = fn),
    };
  }

  it('lets only the lease holder produce', async () => {
    const { leader, follower } = await twoFeeds();
    expect(leader.feed.isLeader()).toBe(true);
    expect(follower.feed.isLeader()).toBe(false);
    expect(follower.feed.stats()).toMatchObject({ steps: 0, events_published: 0 });
    expect(follower.ticks).toEqual([]);
    expect(leader.ticks.length).toBeGreaterThanOrEqual(3);
    expect((await f.bus.range('0', 100_000)).some(([, e]) => e.type === 'price')).toBe(true);
  });

  it('hands over on a graceful stop, continuing the day totals of the old leader', async () => {
    const { leader, follower, followerLeads, followerStepped } = await twoFeeds();
    await leader.feed.stop();
    const lastOfOld = new Map(leader.ticks.flat().map((e) => [e.code, e]));
    await followerLeads;
    await followerStepped;
    const firstOfNew = new Map<string, PriceEvent>();
    for (const e of follower.ticks.flat()) if (!firstOfNew.has(e.code)) firstOfNew.set(e.code, e);
    for (const [code, old] of lastOfOld) {
      // Volume is the day's cumulative volume: a new leader never restarts it.
      expect(firstOfNew.get(code)!.volume, code).toBeGreaterThan(old.volume);
      expect(firstOfNew.get(code)!.open, code).toBe(old.open);
    }
  });

  it('takes over when the leader dies without releasing (lease expiry)', async () => {
    const { leader, follower, followerLeads } = await twoFeeds();
    // The leader loses Redis: it can no longer renew, and stops producing on its own.
    leader.commands.disconnect();
    await followerLeads;
    expect(follower.feed.isLeader()).toBe(true);
    expect(leader.feed.isLeader()).toBe(false);
  });

  it('continues from a tick ingested on the follower instead of overwriting it', async () => {
    const { follower, onLeaderTick } = await twoFeeds();
    // The follower validates against the live quote the leader keeps writing; leave room for its next trades.
    const volume = (await f.quotes.getQuote('035720'))!.volume + 1_000_000;
    const adopted = countdown<PriceEvent>(1);
    onLeaderTick((events) => {
      const e = events.find((x) => x.code === '035720' && x.volume > volume);
      if (e) adopted.notify(e);
    });
    await follower.feed.ingest({ code: '035720', price: 45_000, volume });
    const next = await adopted.done;
    // The manual clock stands still, so the walk barely moves: the leader trades on at the ingested price.
    expect(Math.abs(next.price - 45_000)).toBeLessThanOrEqual(50);
    expect(next.high).toBeGreaterThanOrEqual(45_000);
  });
});
