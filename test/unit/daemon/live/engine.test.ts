import { describe, expect, it } from 'vitest';
import { createLiveScreenEngine, type LiveScreenChange } from '../../../../daemon/live/engine.js';
import { createLiveView } from '../../../../daemon/live/price-overlay.js';
import type { ParsedExpression } from '../../../../daemon/screening/language/expression.js';
import { executeQuery, expressionOf, keepParsed, type ScreenQuery } from '../../../../daemon/screening/engine/query.js';
import { parseScreenRequest } from '../../../../daemon/screening/request/request.js';
import { valueAt } from '../../../../daemon/screening/engine/snapshot.js';
import { LIVE_FIELDS, randomRows, rng, snapshotOf, tickOf } from './market.js';

const KNOWN = new Set<string>(LIVE_FIELDS);
const parse = (body: unknown): ScreenQuery => parseScreenRequest(body, KNOWN);

const QUERIES: Record<string, unknown> = {
  topGainers: { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 10 },
  bigCapsKospi: { filters: { market: 'KOSPI', market_cap: { min: 3e10 } }, sort: [{ field: 'market_cap', direction: 'desc' }], per_page: 15 },
  cheapMovers: { expression: 'per < 40 and change_percent > 1', sort: [{ field: 'volume', direction: 'desc' }, { field: 'name', direction: 'asc' }], per_page: 20 },
  valueYield: { filters: { dividend_yield: { min: 2 }, pbr: { max: 3 } }, sort: [{ field: 'dividend_yield', direction: 'desc' }], per_page: 5, page: 2 },
  statementsOnly: { filters: { roe: { min: 10 } }, sort: [{ field: 'roe', direction: 'desc' }], per_page: 10 },
};

describe('live view (the "same prices" rule)', () => {
  it('recomputes price-dependent fields of the ticking stock from its snapshot values', () => {
    const rows = randomRows(20, 1);
    const view = createLiveView(snapshotOf(rows));
    const row = rows[3]!;
    const close = row.values.close as number;
    const price = close * 1.1;
    view.apply(tickOf(row, price, 5000));
    const at = (f: string) => valueAt(view.snapshot, f, 3);
    expect(at('close')).toBe(price);
    expect(at('market_cap')).toBeCloseTo((row.values.market_cap as number) * 1.1, 0);
    expect(at('pbr')).toBeCloseTo((row.values.pbr as number) * 1.1, 9);
    expect(at('turnover')).toBeCloseTo((5000 / (row.values.shares_outstanding as number)) * 100, 12);
    // The snapshot itself is untouched.
    expect(valueAt(view.base, 'close', 3)).toBe(close);
    expect(valueAt(view.base, 'market_cap', 3)).toBe(row.values.market_cap);
    // Other stocks keep their snapshot values.
    expect(valueAt(view.snapshot, 'close', 4)).toBe(rows[4]!.values.close);
  });
});

describe('live screen engine', () => {
  it('keeps members equal to the engine on the live view after every tick, and the diffs add up', () => {
    const rows = randomRows(300, 7);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const r = rng(99);
    const subs = Object.entries(QUERIES).map(([name, body]) => {
      const query = parse(body);
      const seen: string[] = [];
      const changes: LiveScreenChange[] = [];
      const handle = engine.add(query, (c) => changes.push(c));
      seen.push(...handle.members().map((m) => m.code));
      return { name, query, handle, seen, changes };
    });
    for (let t = 0; t < 1500; t++) {
      const i = Math.floor(r() * rows.length);
      const row = rows[i]!;
      const close = row.values.close as number;
      engine.onTicks([tickOf(row, Math.round(close * (0.8 + r() * 0.4)), Math.floor(r() * 1e6), t)]);
      if (t % 5 !== 0) continue;
      for (const s of subs) {
        const expected = executeQuery(engine.view().snapshot, s.query).items.map((x) => x.code);
        expect(s.handle.members().map((m) => m.code), s.name).toEqual(expected);
      }
    }
    for (const s of subs) {
      // Replaying entered/exited onto the initial members gives the final member set.
      const set = new Set(s.seen);
      for (const c of s.changes) {
        for (const code of c.exited) expect(set.delete(code), `${s.name} exit of a non-member`).toBe(true);
        for (const row of c.entered) {
          expect(set.has(row.code), `${s.name} duplicate enter`).toBe(false);
          set.add(row.code);
        }
        expect(c.count).toBe(set.size);
      }
      expect([...set].sort()).toEqual(s.handle.members().map((m) => m.code).sort());
    }
    expect(subs.find((s) => s.name === 'statementsOnly')!.changes).toEqual([]);
    expect(subs.find((s) => s.name === 'topGainers')!.changes.length).toBeGreaterThan(0);
  });

  it('reports a stock pushed out of a top-N as an exit and the next one as an entry', () => {
    const rows = randomRows(30, 3);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const changes: LiveScreenChange[] = [];
    const handle = engine.add(parse({ sort: [{ field: 'change_percent', direction: 'desc' }, { field: 'code', direction: 'asc' }], per_page: 3 }), (c) => changes.push(c));
    // Every change_percent is 0: the top 3 are the first codes.
    expect(handle.members().map((m) => m.code)).toEqual([rows[0]!.code, rows[1]!.code, rows[2]!.code]);
    const up = rows[10]!;
    engine.onTicks([tickOf(up, (up.values.close as number) * 1.05, 100)]);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.entered.map((m) => m.code)).toEqual([up.code]);
    expect(changes[0]!.entered[0]!.price).toBe((up.values.close as number) * 1.05);
    expect(changes[0]!.exited).toEqual([rows[2]!.code]);
    expect(handle.members().map((m) => m.code)).toEqual([up.code, rows[0]!.code, rows[1]!.code]);
  });

  it('re-evaluates everything on a new snapshot, keeping the live prices', () => {
    const rows = randomRows(50, 5);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const query = parse({ filters: { roe: { min: 10 } }, sort: [{ field: 'roe', direction: 'desc' }], per_page: 50 });
    const changes: LiveScreenChange[] = [];
    const handle = engine.add(query, (c) => changes.push(c));
    const moved = rows[7]!;
    engine.onTicks([tickOf(moved, (moved.values.close as number) + 100, 10)]);
    const next = rows.map((row, i) => (i === 0 ? { ...row, values: { ...row.values, roe: 50 } } : i === 1 ? { ...row, values: { ...row.values, roe: -50 } } : row));
    engine.onSnapshot(snapshotOf(next, 'v2'));
    expect(handle.members().map((m) => m.code)).toEqual(executeQuery(engine.view().snapshot, query).items.map((x) => x.code));
    expect(valueAt(engine.view().snapshot, 'close', 7)).toBe((moved.values.close as number) + 100);
    expect(changes.length).toBeLessThanOrEqual(1);
  });

  it('re-runs a cross-sectional screen whole on every tick, with the same members', () => {
    const rows = randomRows(80, 11);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const query = parse({ expression: 'change_percent > 0', sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 5 });
    // The ranking functions (rank, pct_rank, zscore) set this flag on the parsed expression.
    keepParsed(query, { ...expressionOf(query)!, crossSectional: true } as ParsedExpression);
    const handle = engine.add(query, () => undefined);
    expect(handle.screen.crossSectional).toBe(true);
    const r = rng(4);
    for (let t = 0; t < 100; t++) {
      const row = rows[Math.floor(r() * rows.length)]!;
      engine.onTicks([tickOf(row, Math.round((row.values.close as number) * (0.9 + r() * 0.2)), 1)]);
    }
    engine.settle();
    expect(handle.members().map((m) => m.code)).toEqual(executeQuery(engine.view().snapshot, query).items.map((x) => x.code));
  });

  it('shares one compiled screen between identical queries and drops it with its last subscriber', () => {
    const engine = createLiveScreenEngine(snapshotOf(randomRows(10, 2)));
    const a = engine.add(parse({ per_page: 5 }), () => undefined);
    const b = engine.add(parse({ per_page: 5 }), () => undefined);
    expect(engine.stats()).toEqual({ screens: 1, subscriptions: 2, tick_sensitive: 1, lists: 1 });
    // Another page of the same screen reads the same list of matches.
    const c = engine.add(parse({ per_page: 3, page: 2 }), () => undefined);
    expect(engine.stats()).toEqual({ screens: 2, subscriptions: 3, tick_sensitive: 2, lists: 1 });
    a.close();
    a.close();
    expect(engine.stats().subscriptions).toBe(2);
    b.close();
    c.close();
    expect(engine.stats()).toEqual({ screens: 0, subscriptions: 0, tick_sensitive: 0, lists: 0 });
  });
});
