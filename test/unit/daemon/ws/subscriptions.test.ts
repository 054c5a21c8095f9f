import { describe, expect, it } from 'vitest';
import { createSubscriptionSet, planSubscribe, type Universe } from '../../../../daemon/ws/subscriptions.js';

const universe: Universe = {
  hasStock: (c) => ['005930', '000660', '035720'].includes(c),
  hasSector: (n) => n === 'Internet',
  markets: ['KOSPI', 'KOSDAQ'],
};
const limits = { maxTargetsPerRequest: 3, maxSubscriptions: 4 };

describe('planSubscribe', () => {
  it('accepts known targets, separates unknown ones and reports which are new', () => {
    const set = createSubscriptionSet({ stock: ['005930'] });
    const plan = planSubscribe(set, 'stock', ['005930', '000660', '999999'], universe, limits);
    expect(plan).toEqual({ ok: true, accepted: ['005930', '000660'], added: ['000660'], unknown: ['999999'] });
  });

  it('normalizes market names and removes duplicates before counting', () => {
    const plan = planSubscribe(createSubscriptionSet(), 'market', ['kospi', 'KOSPI', ' KOSDAQ ', 'NYSE'], universe, limits);
    // 4 raw targets but 3 distinct ones: within the per-request limit of 3
    expect(plan).toEqual({ ok: true, accepted: ['KOSPI', 'KOSDAQ'], added: ['KOSPI', 'KOSDAQ'], unknown: ['NYSE'] });
  });

  it('fails the whole request over the per-request target limit', () => {
    const plan = planSubscribe(createSubscriptionSet(), 'stock', ['005930', '000660', '035720', '111111'], universe, limits);
    expect(plan).toMatchObject({ ok: false, reason: 'too_many_targets', details: { requested: 4, max_targets_per_request: 3 } });
  });

  it('fails when the new subscriptions would pass the connection maximum, not counting held ones', () => {
    const set = createSubscriptionSet({ stock: ['005930', '000660'], sector: ['Internet'] });
    // 3 held + 2 new = 5 > 4
    expect(planSubscribe(set, 'market', ['KOSPI', 'KOSDAQ'], universe, limits)).toMatchObject({
      ok: false, reason: 'subscription_limit', details: { current_subscriptions: 3, max_subscriptions: 4, targets: ['KOSPI', 'KOSDAQ'] },
    });
    // 3 held + 1 new = 4: fits; re-subscribing held targets adds nothing
    expect(planSubscribe(set, 'stock', ['005930', '000660', '035720'], universe, limits)).toMatchObject({ ok: true, added: ['035720'] });
  });
});

describe('subscription set', () => {
  it('counts by type and round-trips through the wire map', () => {
    const set = createSubscriptionSet({ stock: ['005930'], market: ['KOSPI'] });
    expect(set.add('stock', '005930')).toBe(false);
    expect(set.add('sector', 'Internet')).toBe(true);
    expect([set.count(), set.count('stock'), set.count('sector')]).toEqual([3, 1, 1]);
    expect(set.delete('market', 'KOSPI')).toBe(true);
    expect(set.toMap()).toEqual({ stock: ['005930'], market: [], sector: ['Internet'] });
    expect([...set.entries()]).toEqual([['stock', '005930'], ['sector', 'Internet']]);
  });
});
