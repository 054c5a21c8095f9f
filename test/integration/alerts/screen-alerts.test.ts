/**
 * The screen alert evaluator's firing rules on a real database and the real
 * live-screen engine: baseline, one firing per entry (exit), one-shot vs recurring, per-stock
 * cooldown, new snapshots, preset changes, and exactly once across two instances that
 * evaluate the same ticks (as every daemon does from the shared tick stream).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlertService, DEFAULT_ALERT_CAPS, type AlertService } from '../../../daemon/alerts/alert-service.js';
import { createScreenAlertEvaluator, type ScreenAlertEvaluator } from '../../../daemon/alerts/screen-alert-evaluator.js';
import { createScreenAlertCauses, type ScreenAlertCauses } from '../../../daemon/alerts/screen-alert-rules.js';
import { createManualClock, type ManualClock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import type { AlertEvent } from '../../../daemon/kernel/events.js';
import { createLiveScreenEngine, membershipWatch, type LiveScreenEngine } from '../../../daemon/live/engine.js';
import { parseScreenRequest } from '../../../daemon/screening/request.js';
import type { Snapshot, SnapshotRow } from '../../../daemon/screening/snapshot.js';
import { valueAt } from '../../../daemon/screening/snapshot.js';
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
const closers: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  store = await openTestStore('screen-alerts');
  clock = createManualClock(T0);
  rows = market();
  current = snapshotOf(rows);
  tickId = 0;
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
  const engine = createLiveScreenEngine(() => current);
  const causes = createScreenAlertCauses(() => engine.version());
  const published: AlertEvent[] = [];
  const evaluator = createScreenAlertEvaluator({
    alerts: repo, clock, logger: createLogger('silent'), cause: causes.cause, onSecond: (l) => causes.onSecond(l),
    publish: async (e) => void published.push(e),
    preset: async (userId, id) => (await presets.get(userId, id)) ?? null,
    watch: (query, listener) => membershipWatch(engine.add(parseScreenRequest(query, KNOWN), listener)),
    quote: (code) => {
      const row = engine.view().snapshot.rowByCode.get(code);
      if (row === undefined) return null;
      const at = (f: string) => valueAt(engine.view().snapshot, f, row) as number | null;
      return { name: engine.view().snapshot.names[row] ?? code, price: at('close'), change_percent: at('change_percent'), volume: at('volume') };
    },
  });
  await evaluator.start();
  closers.push(() => evaluator.close());
  const service = createAlertService({ alerts: repo, stocks: createStocksRepo(handle.db), presets, caps: DEFAULT_ALERT_CAPS, onChange: (id) => evaluator.reload(id) });
  return { engine, causes, evaluator, published, repo, service, presets };
}

/** Every instance evaluates the same tick (one bus id at `ms`), as daemons reading the shared stream do. */
async function tick(instances: Instance[], row: number, changePercent: number, ms = T0): Promise<void> {
  const r = rows[row]!;
  const close = r.values.close as number;
  const event = tickOf(r, Math.round(close * (1 + changePercent / 100)), 1000, T0);
  const id = `${ms}-${tickId++}`;
  for (const i of instances) {
    i.causes.beforeTick(id, () => i.engine.sync());
    i.engine.onTicks([event]);
    i.causes.afterTick();
  }
  for (const i of instances) await i.evaluator.drain();
}

async function setup(i: Instance, alert: { alert_type: 'screen_enter' | 'screen_exit'; recurring?: boolean; cooldown_s?: number }, query: Record<string, unknown> = TOP2) {
  const user = await store.user('pro');
  const made = await i.presets.create(user.id, { name: 'Top gainers', description: null, query });
  if (!made.ok) throw new Error('preset not created');
  const created = await i.service.create({ id: user.id, tier: 'pro' }, { preset_id: made.preset.id, ...alert });
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
    expect(i.published[0]).toMatchObject({ type: 'alert', alert_id: alert.id, user_id: user.id, code: codeOf(0), alert_type: 'screen_enter', threshold: null, preset_id: preset.id });
    expect(i.published[0]!.message).toContain('entered the screen "Top gainers"');
    const [record] = await history(i, user.id, alert.id);
    expect(record).toMatchObject({ code: codeOf(0), preset_id: preset.id, alert_type: 'screen_enter', threshold: null });
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
  it('fire too, once across instances whichever way each noticed the snapshot', async () => {
    const a = await instance();
    const b = await instance();
    const { user, alert } = await setup(a, { alert_type: 'screen_enter', recurring: true });
    await b.evaluator.reload(alert.id);
    // Version 2: row 1 is the day's best gainer.
    rows = rows.map((r, k) => (k === 1 ? { ...r, values: { ...r.values, change_percent: 9 } } : r));
    current = snapshotOf(rows, 'v2');
    a.engine.view(); // A notices it by its timer, before the next tick.
    await a.evaluator.drain();
    await tick([a, b], 3, 1); // B at this tick (the flush in beforeTick): the same cause.
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
  /** The top third by change_percent, as a rank: re-run by the engine on its own timer, not per tick. */
  const RANKED = { expression: 'pct_rank(change_percent) >= 70' };

  it('fires once across instances that re-ran the screen at different moments, and again for a later re-entry', async () => {
    // Given two instances, each with a recurring screen_enter alert's view of the same preset
    const a = await instance();
    const b = await instance();
    const { user, alert } = await setup(a, { alert_type: 'screen_enter', recurring: true }, RANKED);
    await b.evaluator.reload(alert.id);
    expect(b.evaluator.size()).toBe(1);
    // When row 0 jumps into the top third, one instance reads its screen at once, the other not
    await tick([a, b], 0, 20, T0);
    a.engine.view();
    await tick([a, b], 1, 0.1, T0 + 300);
    // Then nothing fires before the second is over, and one firing after it, recorded once
    expect([...a.published, ...b.published]).toEqual([]);
    await tick([a, b], 1, 0.2, T0 + 1000);
    const fired = [...a.published, ...b.published];
    expect(fired.map((e) => e.code)).toEqual([codeOf(0)]);
    expect((await history(a, user.id, alert.id)).map((r) => r.code)).toEqual([codeOf(0)]);
    // When it drops out (row 4 takes its place back) and comes back in later seconds, each entry fires once
    await tick([a, b], 0, -10, T0 + 2000);
    await tick([a, b], 0, 25, T0 + 3000);
    b.engine.view();
    await tick([a, b], 1, 0.3, T0 + 4000);
    expect([...a.published, ...b.published].map((e) => e.code).sort()).toEqual([codeOf(0), codeOf(0), codeOf(4)].sort());
    expect(await history(a, user.id, alert.id)).toHaveLength(3);
  });
});
