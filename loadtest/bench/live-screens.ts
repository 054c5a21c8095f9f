/**
 * Live-screen evaluation cost, in process: the daemon's own engine
 * (daemon/live/engine.ts) over the bench daemon's market, fed the alert bench's replayed
 * random walk one tick at a time.
 * Every stock gets its first live tick before timing starts (steady state, not the opening).
 * - ticks/s sustained with `screens` live screens (10,000 in the full plan), each run for at
 *   most `seconds` (the machine is shared: short, bounded runs);
 * - CPU per tick (process.cpuUsage, user + system) with no live screen, with `cpuScreens`
 *   (1,000), and with the same screens on the engine with list sharing and/or the row index
 *   switched off (and on a baseline build's engine when given), in interleaved rounds after a
 *   warm-up round of each;
 * - the whole lists (formula, score and rank screens) are re-run by the daemon's scheduler (at
 *   most every 25 ms, within a fifth of a core); the replay never yields, so it re-runs them itself (`settle`) at that period and counts
 *   their CPU apart: CPU per re-run, and the core share at one tick per stock per second.
 * The screens are a mix of every template (market overrides, per_page 10–200) and inline
 * top-N / threshold queries on price-dependent fields, all distinct queries; screens that
 * differ only in per_page share a list of matches (175 lists for 1,000 screens), as they do in
 * the daemon — the "lists not shared" rows show the cost when every filter set is distinct.
 */
import { loadSnapshotRows } from '../../daemon/wiring/market.js';
import { createMarketStore } from '../../daemon/wiring/store.js';
import { INDICATOR_IDS } from '../../daemon/indicators/registry.js';
import { createLiveScreenEngine, type LiveScreenEngine } from '../../daemon/live/engine.js';
import type { ListIndexTuning } from '../../daemon/live/list-index.js';
import { RERUN_DEFAULTS } from '../../daemon/live/rerun-scheduler.js';

import type { PriceEvent } from '../../daemon/kernel/events.js';
import { parseScreenRequest } from '../../daemon/screening/request/request.js';
import { executeQuery, type ScreenQuery } from '../../daemon/screening/engine/query.js';
import { buildSnapshot, type Snapshot } from '../../daemon/screening/engine/snapshot.js';
import { applyTemplateOverrides, listTemplates } from '../../daemon/screening/templates/templates.js';
import { openStore, type StoreSettings } from '../../daemon/store/open.js';
import { makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';
import { loadAlertStocks, replayTicks } from './alerts.js';

const SCENARIO = 'live screens (in process)';
const KNOWN = new Set<string>(INDICATOR_IDS);
const SORTS = ['change_percent', 'volume', 'market_cap', 'trading_value', 'per', 'dividend_yield'] as const;
const MARKET_MIX = [undefined, 'KOSPI', 'KOSDAQ'] as const;


/** Time from one re-run of a whole list to the next when its re-runs cost `costMs`: the scheduler's period and share. */
const wholeRerunPeriodMs = (costMs: number) => Math.max(RERUN_DEFAULTS.everyMs, costMs / RERUN_DEFAULTS.share);
/** Re-run the stale whole lists now (an engine from before the scheduler did it on reading the view). */
const settle = (engine: { view(): unknown; settle?: () => void }) => (engine.settle ? engine.settle() : void engine.view());

/** `count` distinct live-screen queries: templates and inline queries in turn. */
export function liveScreenMix(count: number): ScreenQuery[] {
  const templates = listTemplates();
  const out: ScreenQuery[] = [];
  for (let i = 0; i < count; i++) {
    const per_page = 10 + (i % 191);
    const market = MARKET_MIX[i % 3];
    if (i % 2 === 0 && templates.length > 0) {
      const t = templates[(i >> 1) % templates.length]!;
      out.push(applyTemplateOverrides(t, { per_page, ...(market ? { market } : {}) }));
      continue;
    }
    const field = SORTS[i % SORTS.length]!;
    const body: Record<string, unknown> = { sort: [{ field, direction: i % 4 === 1 ? 'asc' : 'desc' }], per_page, ...(market ? { market } : {}) };
    if (i % 3 === 1) body.filters = { change_percent: { min: -3 + (i % 7) } };
    if (i % 5 === 3) body.expression = `change_percent > ${(i % 9) - 4} and volume > ${i % 1000}`;
    out.push(parseScreenRequest(body, KNOWN));
  }
  return out;
}

async function loadSnapshot(store: StoreSettings): Promise<Snapshot> {
  const db = await openStore(store);
  try {
    const { version, rows } = await loadSnapshotRows(createMarketStore(db));
    return buildSnapshot(rows, INDICATOR_IDS, version);
  } finally {
    await db.close();
  }
}

/** Figures of one replay. */
interface Run {
  ticks: number;
  ticks_per_s: number;
  /** CPU per tick of the per-row evaluation (the whole-list re-runs apart). */
  cpu_us_per_tick: number;
  changes: number;
  /** Re-runs of the whole lists (formula, score and rank screens) and their CPU each. */
  reruns: number;
  cpu_ms_per_rerun: number;
}

/** An engine factory: this tree's (with tuning) or a baseline's (BENCH_LIVE_BASELINE). */
export type EngineFactory = (snapshot: Snapshot) => Pick<LiveScreenEngine, 'add' | 'onTicks' | 'view'>;


const cpuNow = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

function replay(snapshot: Snapshot, make: EngineFactory, queries: readonly ScreenQuery[], ticks: readonly PriceEvent[], seconds: number): Run {
  const engine = make(snapshot);
  let changes = 0;
  for (const q of queries) engine.add(q, () => void changes++);
  // Steady state: every stock's first live tick (which moves it from the snapshot's day to
  // today's change) is applied before the clock starts, as on a market that has been open a while.
  const first = new Map<string, PriceEvent>();
  for (const t of ticks) if (!first.has(t.code)) first.set(t.code, t);
  engine.onTicks([...first.values()]);
  settle(engine);
  changes = 0;
  let rerunCpu = 0;
  let reruns = 0;
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  let lastFlush = t0;
  let lastCost = 0;
  let n = 0;
  // Checked every 64 ticks: bounded wall time on a shared machine, and the whole lists' re-runs.
  while (n < ticks.length) {
    engine.onTicks([ticks[n++]!]);
    if ((n & 63) !== 0) continue;
    const now = performance.now();
    if (now >= deadline) break;
    // The daemon's timer (list-index.ts), which this loop never yields to.
    if (now - lastFlush < wholeRerunPeriodMs(lastCost)) continue;
    lastFlush = now;
    const c = cpuNow();
    settle(engine);
    lastCost = (cpuNow() - c) / 1000;
    rerunCpu += lastCost * 1000;
    reruns++;
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuNow() - cpu0 - rerunCpu;
  return { ticks: n, ticks_per_s: n / wall, cpu_us_per_tick: cpu / Math.max(1, n), changes, reruns, cpu_ms_per_rerun: reruns ? rerunCpu / reruns / 1000 : 0 };
}

/** Replay `ticks` into `queries` and count the screens whose members differ from the engine's page on the live view (0 expected). */
export function verifyLiveScreens(snapshot: Snapshot, queries: readonly ScreenQuery[], ticks: readonly PriceEvent[]): number {
  const engine = createLiveScreenEngine(snapshot);
  const handles = queries.map((q) => engine.add(q, () => undefined));
  engine.onTicks(ticks);
  engine.settle();
  const live = engine.view().snapshot;
  return handles.filter((h) => {
    const expected = executeQuery(live, h.screen.query).items.map((x) => x.code).join();
    return h.members().map((m) => m.code).join() !== expected;
  }).length;
}

/** An evaluation measured against the current one: a tuning of this tree's engine, or a baseline engine. */
export interface LiveVariant {
  name: string;
  make: EngineFactory;
}

/** The current engine and the same with each part of the design switched off (list-index.ts ListIndexTuning). */
export function liveVariants(baseline?: EngineFactory): LiveVariant[] {
  const tuned = (tuning: ListIndexTuning): EngineFactory => (s) => createLiveScreenEngine(s, tuning);
  return [
    { name: 'current', make: tuned({}) },
    { name: 'lists not shared', make: tuned({ shareLists: false }) },
    { name: 'no row index', make: tuned({ rowIndex: false }) },
    { name: 'neither', make: tuned({ shareLists: false, rowIndex: false }) },
    ...(baseline ? [{ name: 'baseline', make: baseline }] : []),
  ];
}

/** Figures of the live-screen bench. */
export interface LiveScreenBenchResult {
  stocks: number;
  screens: number;
  cpu_screens: number;
  lists: number;
  with_screens: Run;
  cpu_without: Run[];
  /** Per variant, one run per round (interleaved). */
  cpu_with: { name: string; runs: Run[] }[];
}

/** Options of the in-process bench. */
export interface LiveScreenBenchOptions {
  screens: number;
  cpuScreens: number;
  ticks: number;
  seconds: number;
  verify?: boolean;
  /** Interleaved rounds of the CPU comparison (default 2). */
  rounds?: number;
  /** Another engine to compare with (BENCH_LIVE_BASELINE: its built engine.js). */
  baseline?: EngineFactory;
  /** Also measure the engine with parts switched off (default true; `npm run bench` skips them). */
  compare?: boolean;
}

/** Run the bench on the bench daemon's store. */
export async function runLiveScreenBench(store: StoreSettings, o: LiveScreenBenchOptions): Promise<LiveScreenBenchResult> {
  const snapshot = await loadSnapshot(store);
  const ticks = replayTicks(await loadAlertStocks(store), o.ticks);
  const many = liveScreenMix(o.screens);
  // BENCH_LIVE_VERIFY: the figures are only worth something if the members are right.
  if (o.verify) {
    const wrong = verifyLiveScreens(snapshot, many.slice(0, 300), ticks.slice(0, 3000));
    if (wrong > 0) throw new Error(`live screens: ${wrong} of 300 screens differ from POST /screen on the live view`);
  }
  const some = many.slice(0, o.cpuScreens);
  const current: EngineFactory = (s) => createLiveScreenEngine(s);
  const variants = o.compare === false ? liveVariants().slice(0, 1) : liveVariants(o.baseline);
  // A warm-up round of each path; then interleaved rounds.
  replay(snapshot, current, [], ticks, o.seconds / 4);
  for (const v of variants) replay(snapshot, v.make, some, ticks, o.seconds / 4);
  const without: Run[] = [];
  const withRuns = variants.map((v) => ({ name: v.name, runs: [] as Run[] }));
  for (let round = 0; round < (o.rounds ?? 2); round++) {
    without.push(replay(snapshot, current, [], ticks, o.seconds));
    variants.forEach((v, i) => withRuns[i]!.runs.push(replay(snapshot, v.make, some, ticks, o.seconds)));
  }
  const withScreens = replay(snapshot, current, many, ticks, o.seconds);
  const probe = createLiveScreenEngine(snapshot);
  for (const q of some) probe.add(q, () => undefined);
  return { stocks: snapshot.size, screens: many.length, cpu_screens: some.length, lists: probe.stats().lists, with_screens: withScreens, cpu_without: without, cpu_with: withRuns };
}

const mean = (runs: readonly Run[], f: (r: Run) => number) => runs.reduce((n, r) => n + f(r), 0) / Math.max(1, runs.length);
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Report rows of the live-screen bench (no targets: the issue sets none for these figures). */
export function liveScreenRows(r: LiveScreenBenchResult): ReportRow[] {
  const note = `${r.stocks} stocks, one tick at a time; short bounded runs on a shared machine`;
  const n = r.cpu_screens.toLocaleString('en-US');
  const cur = r.cpu_with.find((v) => v.name === 'current')!.runs;
  const perTick = mean(cur, (x) => x.cpu_us_per_tick);
  const rerunMs = mean(cur, (x) => x.cpu_ms_per_rerun);
  // One tick per stock per second, and the whole lists re-run as often as the daemon lets them.
  const rerunsPerS = 1000 / wholeRerunPeriodMs(rerunMs);
  const share = (r.stocks * perTick + rerunsPerS * rerunMs * 1000) / 1e6;
  return [
    makeRow(SCENARIO, `ticks/s with ${r.screens.toLocaleString('en-US')} live screens`, Math.round(r.with_screens.ticks_per_s), 'ticks/s', null, { note: `${round1(r.with_screens.cpu_us_per_tick)} µs CPU per tick; ${r.with_screens.ticks} ticks, ${r.with_screens.changes} membership changes, ${r.with_screens.reruns} re-runs of the whole lists (${round1(r.with_screens.cpu_ms_per_rerun)} ms CPU each); ${note}` }),
    makeRow(SCENARIO, 'CPU per tick without live screens', round1(mean(r.cpu_without, (x) => x.cpu_us_per_tick)), 'µs'),
    makeRow(SCENARIO, `CPU per tick with ${n} live screens`, round1(perTick), 'µs', null, { note: `per-row evaluation; ${r.lists} lists of matches; rounds ${cur.map((x) => round1(x.cpu_us_per_tick)).join(', ')}; ${cur[0]?.changes ?? 0} membership changes over ${cur[0]?.ticks ?? 0} ticks` }),
    makeRow(SCENARIO, `CPU per re-run of the whole lists (${n} screens)`, round1(rerunMs), 'ms', null, { note: `formula, score and rank screens, re-run through the screening engine every ${Math.round(wholeRerunPeriodMs(rerunMs))} ms at most` }),
    makeRow(SCENARIO, `core share at one tick per stock per second (${n} screens)`, Math.round(share * 100), '%', null, { note: `${r.stocks} ticks/s × per-tick CPU + ${round1(rerunsPerS)} re-runs/s of the whole lists` }),
    ...r.cpu_with.filter((v) => v.name !== 'current').map((v) =>
      makeRow(SCENARIO, `CPU per tick with ${n} live screens, ${v.name}`, round1(mean(v.runs, (x) => x.cpu_us_per_tick)), 'µs', null, { note: `rounds ${v.runs.map((x) => round1(x.cpu_us_per_tick)).join(', ')}, interleaved with the current engine's` }),
    ),
  ];
}
