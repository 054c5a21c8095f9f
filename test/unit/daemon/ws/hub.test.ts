import { describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../../daemon/kernel/events.js';
import { createHub, isRelevant, topicOf, userTopic, type HubMember } from '../../../../daemon/ws/hub.js';
import type { OutMessage } from '../../../../daemon/ws/protocol.js';
import { createSubscriptionSet, type SubscriptionSet } from '../../../../daemon/ws/subscriptions.js';

interface FakeMember extends HubMember {
  got: OutMessage[];
  subs: SubscriptionSet;
  user: string | null;
}

function member(subs: Parameters<typeof createSubscriptionSet>[0] = {}, user: string | null = null): FakeMember {
  const m: FakeMember = {
    lastDispatch: 0, got: [], subs: createSubscriptionSet(subs), user,
    hasSubscriptions: () => m.subs.count() > 0,
    deliver: (msg) => void m.got.push(msg),
  };
  return m;
}

function join(hub: ReturnType<typeof createHub>, m: FakeMember): void {
  hub.addMember(m);
  for (const [type, target] of m.subs.entries()) hub.join(m, topicOf(type, target));
  if (m.user) hub.join(m, userTopic(m.user));
}

const price = (code: string, market: 'KOSPI' | 'KOSDAQ', sector: string | null): MarketEvent => ({
  type: 'price', code, name: code, market, sector, price: 1, change: 0, change_percent: 0, volume: 0, trading_value: 0, open: 1, high: 1, low: 1, prev_close: 1, ts: 0,
});

describe('hub fan-out', () => {
  const events: MarketEvent[] = [
    price('005930', 'KOSPI', 'Semis'),
    price('247540', 'KOSDAQ', 'Batteries'),
    price('999999', 'KOSDAQ', null),
    { type: 'orderbook', code: '005930', market: 'KOSPI', sector: 'Semis', bids: [], asks: [], ts: 0 },
    { type: 'market_status', market: 'KOSPI', status: 'open', ts: 0 },
    { type: 'alert', user_id: 'u1', alert_id: 'a', code: '005930', alert_type: 'price_above', threshold: 1, current_price: 2, message: '', ts: 0 },
  ];

  it('delivers each event to stock, market and sector subscribers, once per member', () => {
    const hub = createHub();
    const both = member({ stock: ['005930'], market: ['KOSPI'], sector: ['Semis'] });
    const kosdaq = member({ market: ['KOSDAQ'] });
    const none = member();
    const owner = member({}, 'u1');
    for (const m of [both, kosdaq, none, owner]) join(hub, m);
    const counts = events.map((e, i) => hub.dispatch(`${i}-0`, e));
    // price 005930 → both; 247540 → kosdaq; 999999 → kosdaq; orderbook → both; status → both, kosdaq; alert → owner
    expect(counts).toEqual([1, 1, 1, 1, 2, 1]);
    expect(both.got.map((m) => m.type)).toEqual(['price_update', 'orderbook_update', 'market_status']);
    expect(kosdaq.got.map((m) => m.streamId)).toEqual(['1-0', '2-0', '4-0']);
    expect(none.got).toEqual([]);
    expect(owner.got.map((m) => m.type)).toEqual(['alert']);
  });

  it('shares one message object between recipients', () => {
    const hub = createHub();
    const a = member({ stock: ['005930'] });
    const b = member({ sector: ['Semis'] });
    join(hub, a);
    join(hub, b);
    hub.dispatch('1-0', events[0]!);
    expect(a.got[0]).toBe(b.got[0]);
  });

  it('stops delivering after leave/removeMember and drops empty topics', () => {
    const hub = createHub();
    const a = member({ stock: ['005930'], market: ['KOSPI'] });
    join(hub, a);
    expect(hub.topicCount()).toBe(2);
    hub.leave(a, topicOf('stock', '005930'));
    hub.dispatch('1-0', events[0]!); // still via KOSPI
    hub.removeMember(a, [topicOf('market', 'KOSPI')]);
    hub.dispatch('2-0', events[0]!);
    expect(a.got).toHaveLength(1);
    expect(hub.topicCount()).toBe(0);
  });

  it('uses the same rules for replay (isRelevant) as for live delivery', () => {
    const members = [
      member({ stock: ['005930'] }), member({ market: ['KOSDAQ'] }), member({ sector: ['Batteries'] }), member(), member({}, 'u1'), member({ market: ['KOSPI'] }, 'u2'),
    ];
    const hub = createHub();
    members.forEach((m) => join(hub, m));
    events.forEach((e, i) => hub.dispatch(`${i}-0`, e));
    for (const m of members) {
      const expected = events.map((e, i) => (isRelevant(e, m.subs, m.user) ? `${i}-0` : null)).filter(Boolean);
      expect(m.got.map((g) => g.streamId)).toEqual(expected);
    }
  });
});
