/**
 * The live-screen engine against the screening engine itself, on random markets and random
 * queries: after every few ticks each screen's members are the page POST /screen?prices=live
 * answers (executeQuery on the live view), and the diffs each subscriber received, applied to
 * its first members, give the members now. Covers the shared lists (pages of one filter set),
 * the row index (statement filters, markets, price-free expressions), screens closing while
 * others tick, and the whole lists (formula columns, scores, ranks).
 */
import { describe, expect, it, vi } from 'vitest';
import { createLiveScreenEngine, type LiveScreenChange, type LiveScreenHandle } from '../../../../daemon/live/engine.js';
import { isStaticMemoKey } from '../../../../daemon/live/whole-list.js';
import { executeQuery, type ScreenQuery } from '../../../../daemon/screening/engine/query.js';
import { parseScreenRequest } from '../../../../daemon/screening/request/request.js';
import { LIVE_FIELDS, randomRows, rng, snapshotOf, tickOf } from './market.js';

const KNOWN = new Set<string>(LIVE_FIELDS);
const parse = (body: unknown): ScreenQuery => parseScreenRequest(body, KNOWN);

const SORT_FIELDS = ['change_percent', 'volume', 'market_cap', 'per', 'dividend_yield', 'roe', 'rsi_14', 'turnover'];

/** A random query body: universe, range filters on price and statement fields, an expression, sort and page. */
function randomBody(r: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const filters: Record<string, unknown> = {};
  if (r() < 0.4) filters.market = pick(['KOSPI', 'KOSDAQ']);
  if (r() < 0.3) filters.roe = { min: Math.round(r() * 20 - 5) };
  if (r() < 0.3) filters.change_percent = { min: Math.round(r() * 10 - 5) };
  if (r() < 0.2) filters.per = { max: Math.round(r() * 60) };
  if (r() < 0.2) filters.rsi_14 = { min: 20, max: 80 };
  const body: Record<string, unknown> = {
    filters,
    sort: [{ field: pick(SORT_FIELDS), direction: r() < 0.5 ? 'asc' : 'desc' }],
    per_page: 1 + Math.floor(r() * 40),
    page: r() < 0.2 ? 2 : 1,
  };
  const e = r();
  if (e < 0.15) body.expression = `rsi_14 > ${Math.round(r() * 60)}`;
  else if (e < 0.3) body.expression = `pbr < ${(r() * 3).toFixed(2)} or change_percent > 2`;
  else if (e < 0.35) body.expression = 'pct_rank(change_percent) >= 60';
  else if (e < 0.4) body.expression = 'pct_rank(roe) by sector >= 50 and pct_rank(per) <= 70';
  return body;
}

interface Sub {
  query: ScreenQuery;
  handle: LiveScreenHandle;
  members: Set<string>;
  changes: LiveScreenChange[];
}

function subscribe(engine: ReturnType<typeof createLiveScreenEngine>, query: ScreenQuery): Sub {
  const changes: LiveScreenChange[] = [];
  const handle = engine.add(query, (c) => changes.push(c));
  return { query, handle, members: new Set(handle.members().map((m) => m.code)), changes };
}

/** Every screen's members equal the engine's page on the live view, and its diffs add up to them. */
function check(engine: ReturnType<typeof createLiveScreenEngine>, subs: readonly Sub[]): void {
  // The whole lists' re-runs are scheduled on timers: bring them all up to the view first.
  engine.settle();
  const live = engine.view().snapshot;
  for (const sub of subs) {
    const expected = executeQuery(live, sub.query).items.map((x) => x.code);
    expect(sub.handle.members().map((m) => m.code), JSON.stringify(sub.query)).toEqual(expected);
    for (const c of sub.changes.splice(0)) {
      for (const code of c.exited) expect(sub.members.delete(code)).toBe(true);
      for (const row of c.entered) sub.members.add(row.code);
      expect(sub.members.size).toBe(c.count);
    }
    expect([...sub.members].sort()).toEqual([...expected].sort());
  }
}

describe('live screens equal the screening engine on the live view', () => {
  it.each([1, 2, 3])('random market and queries (seed %i)', (seed) => {
    const rows = randomRows(250, seed);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const r = rng(seed * 31);
    const subs: Sub[] = [];
    for (let i = 0; i < 40; i++) {
      const body = randomBody(r);
      subs.push(subscribe(engine, parse(body)));
      // Another page of the same filter set: it shares the list.
      if (i % 4 === 0) subs.push(subscribe(engine, parse({ ...body, per_page: 5 + Math.floor(r() * 60), page: 1 })));
    }
    expect(engine.stats().lists).toBeLessThan(subs.length);
    for (let t = 0; t < 1200; t++) {
      const row = rows[Math.floor(r() * rows.length)]!;
      const close = row.values.close as number;
      engine.onTicks([tickOf(row, Math.round(close * (0.85 + r() * 0.3)), Math.floor(r() * 1e6), t)]);
      if (t % 100 === 50) {
        // One screen goes away (its list too when it was the last reader); the others keep ticking.
        const gone = subs.splice(Math.floor(r() * subs.length), 1)[0]!;
        gone.handle.close();
      }
      if (t % 40 === 0) check(engine, subs);
    }
    check(engine, subs);
  });

  it('keeps a template with a score and formula columns equal to POST /screen, items included', () => {
    const rows = randomRows(120, 9);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const query = parse({
      columns: { book_to_price: '1 / pbr' },
      score: { book_to_price: 1, roe: 1 },
      expression: 'score >= 40',
      sort: [{ field: 'score', direction: 'desc' }],
      per_page: 10,
    });
    const sub = subscribe(engine, query);
    const r = rng(5);
    for (let t = 0; t < 200; t++) {
      const row = rows[Math.floor(r() * rows.length)]!;
      engine.onTicks([tickOf(row, Math.round((row.values.close as number) * (0.7 + r() * 0.6)), 10, t)]);
    }
    engine.settle();
    const expected = executeQuery(engine.view().snapshot, query).items;
    const members = sub.handle.members();
    expect(members.map((m) => m.code)).toEqual(expected.map((x) => x.code));
    expect(members.map((m) => m.score)).toEqual(expected.map((x) => x.score));
  });

  it('sends the change of a re-run-whole screen without anyone reading it', async () => {
    const rows = randomRows(60, 4);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const query = parse({ expression: 'pct_rank(change_percent) >= 90', sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 3 });
    const changed = new Promise<LiveScreenChange>((resolve) => engine.add(query, resolve));
    const up = rows[17]!;
    engine.onTicks([tickOf(up, (up.values.close as number) * 1.2, 100)]);
    const change = await changed;
    expect(change.entered.map((m) => m.code)).toContain(up.code);
  });

  it('re-runs a whole list in slices on its own timers and ends on the members of POST /screen on the live view', async () => {
    // Given a list of formula columns and ranks, re-run by the scheduler with a slice of 0 ms:
    // it pauses at every checkpoint of the engine (each column, the filter, the sort)
    const rows = randomRows(200, 12);
    const engine = createLiveScreenEngine(snapshotOf(rows), { rerun: { share: 0.5, sliceMs: 0, everyMs: 5 } });
    const query = parse({
      columns: { a: 'pct_rank(change_percent) + roe', b: 'a * 2 - pct_rank(per)', c: 'b + pct_rank(volume) by sector' },
      expression: 'c > 80', sort: [{ field: 'c', direction: 'desc' }], per_page: 15,
    });
    const handle = engine.add(query, () => undefined);
    // When ticks move many prices and nobody settles the list
    const r = rng(3);
    const before = engine.reruns();
    for (let t = 0; t < 60; t++) {
      const row = rows[Math.floor(r() * rows.length)]!;
      engine.onTicks([tickOf(row, Math.round((row.values.close as number) * (0.8 + r() * 0.4)), 1000, t)]);
    }
    // Then its re-run comes by itself (awaited: the scheduler's own timers), over several slices
    await vi.waitFor(() => {
      expect(engine.reruns().reruns).toBeGreaterThan(before.reruns);
      expect(engine.reruns().pending).toBe(0);
    }, { timeout: 10_000, interval: 5 });
    const after = engine.reruns();
    expect(after.slices - before.slices).toBeGreaterThan(after.reruns - before.reruns);
    // And its members are the screening engine's answer on the live view
    const expected = executeQuery(engine.view().snapshot, query).items.map((x) => x.code);
    expect(handle.members().map((m) => m.code)).toEqual(expected);
    handle.close();
  });

  it('makes a new whole list\'s first run in units ahead of its add, and the add answers with it', async () => {
    // Given a whole list nobody watches yet, prepared with a checkpoint that counts its units
    const rows = randomRows(150, 21);
    const engine = createLiveScreenEngine(snapshotOf(rows));
    const query = parse({ columns: { a: 'pct_rank(roe) + pct_rank(change_percent)', b: 'a * 2' }, expression: 'b > 100', sort: [{ field: 'b', direction: 'desc' }], per_page: 10 });
    let units = 0;
    await engine.prepare(query, async () => {
      units++;
      await Promise.resolve();
    });
    // When it is added right after
    const handle = engine.add(query, () => undefined);
    // Then the first run was made in several units, and the members are the engine's answer
    expect(units).toBeGreaterThan(2);
    expect(handle.members().map((m) => m.code)).toEqual(executeQuery(engine.view().snapshot, query).items.map((x) => x.code));
    // And a list already made is not prepared again
    units = 0;
    await engine.prepare(query, async () => void units++);
    expect(units).toBe(0);
    handle.close();
  });

  it('remembers across ticks only the ranks of values no tick changes', () => {
    expect(isStaticMemoKey('order|roe')).toBe(true);
    expect(isStaticMemoKey('ALL/반도체//|pct_rank(roe) by sector')).toBe(true);
    expect(isStaticMemoKey('column|KOSPI////administrative|coalesce(roe, 0)')).toBe(true);
    expect(isStaticMemoKey('order|per')).toBe(false);
    expect(isStaticMemoKey('*|pct_rank(earnings_yield) by sector')).toBe(false);
    // A formula column's name is not known to be static.
    expect(isStaticMemoKey('order|book_to_price')).toBe(false);
    expect(isStaticMemoKey('column|*|1 / pbr')).toBe(false);
  });
});
