/**
 * The screen alert evaluator's firing rules on a real database and the real live-screen engine,
 * reading quotes as the daemon does (`quoteAt` on the live view; the wired daemon's prices are
 * checked in test/integration/live/screen-alert-price.test.ts): baseline, one firing per entry
 * (exit), one-shot vs recurring, per-stock cooldown, new snapshots, preset changes, exactly once
 * across two instances that evaluate the same ticks (as every daemon does from the shared tick
 * stream), whole lists fired from the engine's own re-runs, a dwell that keeps a stock at the
 * edge of the page from chattering, and membership by the preset's conditions rather than its page.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlertService, DEFAULT_ALERT_CAPS, type AlertService } from '../../../daemon/alerts/alert-service.js';
import { createScreenAlertEvaluator, type ScreenAlertEvaluator } from '../../../daemon/alerts/screen-alert-evaluator.js';
import { createScreenAlertCauses, type ScreenAlertCauses } from '../../../daemon/alerts/screen-alert-rules.js';
import { createManualClock, type ManualClock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import type { AlertEvent } from '../../../daemon/kernel/events.js';
import { createLiveScreenEngine, hasConditions, membershipQuery, membershipWatch, type LiveScreenEngine } from '../../../daemon/live/engine.js';
import { parseScreenRequest } from '../../../daemon/screening/request/request.js';
import type { Snapshot, SnapshotRow } from '../../../daemon/screening/engine/snapshot.js';
import { quoteAt } from '../../../daemon/screening/engine/snapshot.js';
import { createAlertsRepo, type AlertsRepo } from '../../../daemon/store/alerts-repo.js';
import { createPresetsRepo, type PresetsRepo } from '../../../daemon/store/presets-repo.js';
import { createStocksRepo } from '../../../daemon/store/stocks-repo.js';
import { openTestStore, type TestStore } from '../../helpers/portfolio-harness.js';
import { openTestDb } from '../../helpers/test-store.js';
import { LIVE_FIELDS, randomRows, snapshotOf, tickOf } from '../../unit/daemon/live/market.js';

const T0 = Date.parse('2025-03-04T01:00:00Z');
const KNOWN = new Set<string>(LIVE_FIELDS);
/** The preset: the top 2 gainers. */
const TOP2 = { sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 2 };

/** Six stocks whose snapshot change_percent is 0..5: the top 2 are rows 5 and 4. */
function market(): SnapshotRow[] {
  return randomRows(6, 3).map((r, i) => ({ ...r, values: { ...r.values, change_percent: i } }));
}

interface Instance {
  engine: LiveScreenEngine;
  causes: ScreenAlertCauses;
  evaluator: ScreenAlertEvaluator;
  published: AlertEvent[];
  repo: AlertsRepo;
  service: AlertService;
  presets: PresetsRepo;
}

let store: TestStore;
let clock: ManualClock;
let rows: SnapshotRow[];
/** The indicator snapshot every instance's engine reads (as the daemons' snapshot holders). */
let current: Snapshot;
let tickId = 0;
/** The keys whole-list firings take, with their expiry. */
let onceKeys: Map<string, number>;
const closers: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  store = await openTestStore('screen-alerts');
  clock = createManualClock(T0);
  rows = market();
  current = snapshotOf(rows);
  tickId = 0;
  onceKeys = new Map();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await store.close();
});

/** One "daemon": its own database handle, live engine and evaluator. */
async function instance(): Promise<Instance> {
  const handle = await openTestDb('screen-alerts', store.settings);
  closers.push(() => handle.close());
  const repo = createAlertsRepo(handle.db);
  const presets = createPresetsRepo(handle.db);
  // Fixed on the snapshot of its start: a swap reaches it as the daemon's swap event does (swapIn).
  const engine = createLiveScreenEngine(current);
  const causes = createScreenAlertCauses(() => engine.version());
  const published: AlertEvent[] = [];
  const evaluator = createScreenAlertEvaluator({
    alerts: repo, clock, logger: createLogger('silent'), cause: causes.cause,
    // Redis SET NX PX across daemons: one map shared by the instances, expiring on the manual clock.
    once: async (key, ttlMs) => {
      if ((onceKeys.get(key) ?? Number.NEGATIVE_INFINITY) > clock.now()) return false;
      onceKeys.set(key, clock.now() + ttlMs);
      return true;
    },
    publish: async (e) => void published.push(e),
    preset: async (userId, id) => (await presets.get(userId, id)) ?? null,
    watch: (query, membership, listener) => membershipWatch(engine.add(membershipQuery(parseScreenRequest(query, KNOWN), membership), listener)),
    // The daemon's own reading of the live view (daemon/wiring/realtime.ts).
    quote: (code) => quoteAt(engine.view().snapshot, code),
  });
  await evaluator.start();
  closers.push(() => evaluator.close());
  const service = createAlertService({
    alerts: repo, stocks: createStocksRepo(handle.db), presets, caps: DEFAULT_ALERT_CAPS, onChange: (id) => evaluator.reload(id),
    checkScreen: (query) => ({ conditions: hasConditions(parseScreenRequest(query, KNOWN)) }),
  });
  return { engine, causes, evaluator, published, repo, service, presets };
}

/** Every instance evaluates the same tick (one bus id at `ms`), as daemons reading the shared stream do. */
async function tick(instances: Instance[], row: number, changePercent: number, ms = T0): Promise<void> {
  const r = rows[row]!;
  const close = r.values.close as number;
  const event = tickOf(r, Math.round(close * (1 + changePercent / 100)), 1000, T0);
  const id = `${ms}-${tickId++}`;
  for (const i of instances) {
    i.causes.during(id, () => i.engine.onTicks([event]));
  }
  for (const i of instances) await i.evaluator.drain();
}

type AlertSpec = { alert_type: 'screen_enter' | 'screen_exit'; recurring?: boolean; cooldown_s?: number; membership?: 'conditions' | 'page'; dwell_s?: number };

/** A preset and an alert on it; unless told otherwise, the page (the top 2) counted at once. */
async function setup(i: Instance, alert: AlertSpec, query: Record<string, unknown> = TOP2) {
  const user = await store.user('pro');
  const made = await i.presets.create(user.id, { name: 'Top gainers', description: null, query });
  if (!made.ok) throw new Error('preset not created');
  const created = await i.service.create({ id: user.id, tier: 'pro' }, { preset_id: made.preset.id, membership: 'page', dwell_s: 0, ...alert });
  return { user, preset: made.preset, alert: created };
}

const codeOf = (row: number) => rows[row]!.code;
const history = async (i: Instance, userId: string, alertId: string) => (await i.service.events(userId, { alertId, limit: 50, offset: 0 })).items;

describe('screen_enter', () => {
  it('does not fire for the members at creation, fires once for a stock pushed into the top-N, and a one-shot alert then stops', async () => {
    const i = await instance();
    const { user, preset, alert } = await setup(i, { alert_type: 'screen_enter' });
    // A member moving inside the screen changes nothing.
    await tick([i], 5, 8);
    expect(i.published).toEqual([]);
    // Row 0 jumps to +20%: it enters the top 2 (row 4 leaves).
    await tick([i], 0, 20);
    expect(i.published).toHaveLength(1);
    // (at the price of the tick that moved it in)
    const price = Math.round((rows[0]!.values.close as number) * 1.2);
    expect(i.published[0]).toMatchObject({ type: 'alert', alert_id: alert.id, user_id: user.id, code: codeOf(0), alert_type: 'screen_enter', threshold: null, preset_id: preset.id, current_price: price });
    expect(i.published[0]!.message).toContain('entered the screen "Top gainers"');
    const [record] = await history(i, user.id, alert.id);
    expect(record).toMatchObject({ code: codeOf(0), preset_id: preset.id, alert_type: 'screen_enter', threshold: null, price });
    expect(await i.service.get(user.id, alert.id)).toMatchObject({ active: false, fire_count: 1 });
    // Out and in again: a one-shot alert has fired already.
    await tick([i], 0, -10);
    await tick([i], 0, 25);
    expect(i.published).toHaveLength(1);
    expect(i.evaluator.size()).toBe(0);
  });

  it('a recurring alert fires again for a stock only after it has left and re-entered', async () => {
    const i = await instance();
    const { user, alert } = await setup(i, { alert_type: 'screen_enter', recurring: true });
    await tick([i], 0, 20); // enters
    await tick([i], 0, 22); // stays
    await tick([i], 0, -10); // leaves; row 4 re-enters
    await tick([i], 0, 25); // enters again; row 4 leaves
    expect(i.published.map((e) => e.code)).toEqual([codeOf(0), codeOf(4), codeOf(0)]);
    expect((await history(i, user.id, alert.id)).map((e) => e.code)).toEqual([codeOf(0), codeOf(4), codeOf(0)].reverse());
    expect(await i.service.get(user.id, alert.id)).toMatchObject({ active: true, fire_count: 3 });
  });

  it('a recurring alert honours its cooldown per stock', async () => {
    const i = await instance();
    const { user, alert } = await setup(i, { alert_type: 'screen_enter', recurring: true, cooldown_s: 600 });
    await tick([i], 0, 20);
    await tick([i], 0, -10); // row 4 back in: a different stock, fires
    clock.advance(60_000);
    await tick([i], 0, 25); // row 0 again within 10 minutes: no firing
    await tick([i], 0, -10); // row 4 again within 10 minutes of its firing: none either
    clock.advance(600_000);
    await tick([i], 0, 30); // row 0 after the cooldown
    expect(i.published.map((e) => e.code)).toEqual([codeOf(0), codeOf(4), codeOf(0)]);
    expect(await history(i, user.id, alert.id)).toHaveLength(3);
  });
});

describe('screen_exit', () => {
  it('fires for the stock pushed out of the top-N, not for the one entering', async () => {
    const i = await instance();
    const { alert } = await setup(i, { alert_type: 'screen_exit', recurring: true });
    await tick([i], 0, 20);
    expect(i.published).toHaveLength(1);
    expect(i.published[0]).toMatchObject({ alert_id: alert.id, code: codeOf(4), alert_type: 'screen_exit' });
    expect(i.published[0]!.message).toContain('left the screen');
  });
});

describe('changes of membership from a new indicator snapshot', () => {
  it('fire too, once across instances whenever each swapped it in', async () => {
    const a = await instance();
    const b = await instance();
    const { user, alert } = await setup(a, { alert_type: 'screen_enter', recurring: true });
    await b.evaluator.reload(alert.id);
    // Version 2: row 1 is the day's best gainer.
    rows = rows.map((r, k) => (k === 1 ? { ...r, values: { ...r.values, change_percent: 9 } } : r));
    current = snapshotOf(rows, 'v2');
    a.engine.onSnapshot(current); // A swaps it in first and fires,
    await a.evaluator.drain();
    b.engine.onSnapshot(current); // B later (its firing's claim is the same: the snapshot's),
    await b.evaluator.drain();
    await tick([a, b], 3, 1); // and a tick after both swaps is the tick's alone.
    expect([...a.published, ...b.published].map((e) => e.code)).toEqual([codeOf(1)]);
    expect(await history(a, user.id, alert.id)).toHaveLength(1);
  });
});

describe('two instances evaluating the same ticks', () => {
  it('record and publish each firing once; a one-shot alert leaves both', async () => {
    const a = await instance();
    const b = await instance();
    const one = await setup(a, { alert_type: 'screen_enter' });
    const many = await setup(a, { alert_type: 'screen_exit', recurring: true });
    await b.evaluator.reload(one.alert.id);
    await b.evaluator.reload(many.alert.id);
    expect(b.evaluator.size()).toBe(2);
    for (const pct of [20, -10, 25, -10]) await tick([a, b], 0, pct);
    const all = [...a.published, ...b.published];
    expect(all.filter((e) => e.alert_id === one.alert.id).map((e) => e.code)).toEqual([codeOf(0)]);
    // Exits: row 4, row 0, row 4, row 0 — each once.
    expect(all.filter((e) => e.alert_id === many.alert.id)).toHaveLength(4);
    expect(await history(a, many.user.id, many.alert.id)).toHaveLength(4);
    expect(a.evaluator.size()).toBe(1);
    expect(b.evaluator.size()).toBe(1);
  });
});

describe('preset changes', () => {
  it('an alert follows the preset\'s new query from its members then; deleting the preset deletes the alert', async () => {
    const i = await instance();
    const { user, preset, alert } = await setup(i, { alert_type: 'screen_enter', recurring: true });
    // The top 3 now: row 3 is a member of the new baseline, so it does not fire.
    await i.presets.update(user.id, preset.id, { query: { ...TOP2, per_page: 3 } });
    await i.evaluator.presetChanged(preset.id);
    await tick([i], 2, 3.5); // row 2 passes row 3: enters the top 3
    expect(i.published.map((e) => e.code)).toEqual([codeOf(2)]);
    await i.presets.delete(user.id, preset.id);
    await i.evaluator.presetChanged(preset.id);
    expect(i.evaluator.size()).toBe(0);
    await expect(i.service.get(user.id, alert.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // The history stays.
    expect((await i.service.events(user.id, { limit: 10, offset: 0 })).items).toHaveLength(1);
  });
});

describe('a preset whose saved query no longer compiles', () => {
  it('leaves its alert unwatched until the preset is fixed', async () => {
    const i = await instance();
    const { user, preset, alert } = await setup(i, { alert_type: 'screen_enter', recurring: true });
    // The field the query names is gone (as after an indicator is removed).
    await i.presets.update(user.id, preset.id, { query: { ...TOP2, filters: { removed_indicator: { min: 1 } } } });
    await i.evaluator.presetChanged(preset.id);
    expect(i.evaluator.size()).toBe(0);
    expect(await i.service.get(user.id, alert.id)).toMatchObject({ active: true });
    await i.presets.update(user.id, preset.id, { query: TOP2 });
    await i.evaluator.presetChanged(preset.id);
    expect(i.evaluator.size()).toBe(1);
    await tick([i], 0, 20);
    expect(i.published.map((e) => e.code)).toEqual([codeOf(0)]);
  });
});

describe('creating a screen alert', () => {
  it('needs one of the caller\'s presets', async () => {
    const i = await instance();
    const { preset } = await setup(i, { alert_type: 'screen_enter' });
    const mallory = await store.user('pro');
    await expect(i.service.create({ id: mallory.id, tier: 'pro' }, { preset_id: preset.id, alert_type: 'screen_enter' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST', details: { preset_id: 'no preset of yours has this id' },
    });
  });
});

describe('a screen on ranks (its members move with every stock\'s price)', () => {
  /** The top third by change_percent, as a rank: re-run by the engine's scheduler, not per tick. */
  const RANKED = { expression: 'pct_rank(change_percent) >= 70' };

  /** One instance's scheduler re-runs its whole lists now (each daemon's at its own moment). */
  async function rerun(i: Instance): Promise<void> {
    i.engine.settle();
    await i.evaluator.drain();
  }

  it('fires from the engine\'s re-run (never forcing one), once across instances that re-ran at different moments, and again for a later re-entry', async () => {
    // Given two instances, each with a recurring screen_enter alert's view of the same preset
    const a = await instance();
    const b = await instance();
    const { user, alert } = await setup(a, { alert_type: 'screen_enter', recurring: true, membership: 'conditions' }, RANKED);
    await b.evaluator.reload(alert.id);
    expect(b.evaluator.size()).toBe(1);
    // When row 0 jumps into the top third, nothing fires until a re-run has seen it
    await tick([a, b], 0, 20, T0);
    expect(a.engine.reruns().pending).toBe(1);
    expect([...a.published, ...b.published]).toEqual([]);
    // Then instance A's re-run fires it; B's later re-run finds it taken
    await rerun(a);
    clock.advance(300);
    await rerun(b);
    expect([...a.published, ...b.published].map((e) => e.code)).toEqual([codeOf(0)]);
    expect((await history(a, user.id, alert.id)).map((r) => r.code)).toEqual([codeOf(0)]);
    // When it drops out (row 4 takes its place back) and comes back in a minute later, each entry fires once
    clock.advance(60_000);
    await tick([a, b], 0, -10, T0 + 60_000);
    await rerun(b);
    await rerun(a);
    clock.advance(1000);
    await tick([a, b], 0, 25, T0 + 61_000);
    await rerun(b);
    await rerun(a);
    expect([...a.published, ...b.published].map((e) => e.code).sort()).toEqual([codeOf(0), codeOf(0), codeOf(4)].sort());
    expect(await history(a, user.id, alert.id)).toHaveLength(3);
  });
});

describe('a stock at the edge of the page (dwell)', () => {
  it('does not fire while two stocks swap places within the dwell; fires once for the one that stays, on both instances', async () => {
    // Given a recurring screen_enter alert on the top 2 with a 30 s dwell, on two instances
    const a = await instance();
    const b = await instance();
    const { user, alert } = await setup(a, { alert_type: 'screen_enter', recurring: true, dwell_s: 30 });
    await b.evaluator.reload(alert.id);
    // When row 0 (4.5 %) and row 4 (4 %) swap the second place every 5 seconds for a minute
    for (let k = 0; k < 12; k++) {
      await tick([a, b], 0, k % 2 === 0 ? 4.5 : 3.5, T0 + k * 5000);
      clock.advance(5000);
      for (const i of [a, b]) i.evaluator.sweep();
      for (const i of [a, b]) await i.evaluator.drain();
    }
    // Then nothing fired (row 0 ended outside the page)
    expect([...a.published, ...b.published]).toEqual([]);
    // When row 0 enters and stays for the dwell
    await tick([a, b], 0, 4.5, T0 + 60_000);
    clock.advance(29_000);
    for (const i of [a, b]) i.evaluator.sweep();
    expect([...a.published, ...b.published]).toEqual([]);
    clock.advance(1000);
    for (const i of [a, b]) i.evaluator.sweep();
    for (const i of [a, b]) await i.evaluator.drain();
    // Then it fires once, recorded once
    expect([...a.published, ...b.published].map((e) => e.code)).toEqual([codeOf(0)]);
    expect(await history(a, user.id, alert.id)).toHaveLength(1);
  });
});

describe('membership by the preset\'s conditions', () => {
  /** Gainers of 3 % or more, the top 2 of them on the page: rows 3, 4, 5 match, rows 5 and 4 on the page. */
  const GAINERS = { filters: { change_percent: { min: 3 } }, sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 2 };

  it('counts a stock that meets the conditions wherever the sort puts it: no exit for one pushed off the page', async () => {
    const i = await instance();
    const enter = await setup(i, { alert_type: 'screen_enter', recurring: true, membership: 'conditions' }, GAINERS);
    const exit = await setup(i, { alert_type: 'screen_exit', recurring: true, membership: 'conditions' }, GAINERS);
    const pageExit = await setup(i, { alert_type: 'screen_exit', recurring: true, membership: 'page' }, GAINERS);
    // Row 0 jumps to +10 %: it meets the conditions (enters); row 4 is pushed off the page but still meets them
    await tick([i], 0, 10);
    const by = (id: string) => i.published.filter((e) => e.alert_id === id).map((e) => e.code);
    expect(by(enter.alert.id)).toEqual([codeOf(0)]);
    expect(by(exit.alert.id)).toEqual([]);
    expect(by(pageExit.alert.id)).toEqual([codeOf(4)]);
    // Row 3 falls under 3 %: it no longer meets them (exits), although it was never on the page
    await tick([i], 3, 1);
    expect(by(exit.alert.id)).toEqual([codeOf(3)]);
    expect(by(pageExit.alert.id)).toEqual([codeOf(4)]);
  });

  it('is the default for a preset with conditions; a preset that only sorts has its page, and asking for conditions on it is refused', async () => {
    const i = await instance();
    const user = await store.user('pro');
    const made = async (name: string, query: Record<string, unknown>) => {
      const p = await i.presets.create(user.id, { name, description: null, query });
      if (!p.ok) throw new Error('preset not created');
      return p.preset.id;
    };
    const gainers = await made('gainers', GAINERS);
    const top2 = await made('top 2', TOP2);
    const owner = { id: user.id, tier: 'pro' as const };
    await expect(i.service.create(owner, { preset_id: gainers, alert_type: 'screen_enter' })).resolves.toMatchObject({ membership: 'conditions', dwell_s: 30 });
    await expect(i.service.create(owner, { preset_id: top2, alert_type: 'screen_enter' })).resolves.toMatchObject({ membership: 'page', dwell_s: 30 });
    await expect(i.service.create(owner, { preset_id: top2, alert_type: 'screen_enter', membership: 'conditions' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST', details: { membership: expect.stringContaining('page') },
    });
  });
});
