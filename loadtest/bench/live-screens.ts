/**
 * Live-screen evaluation cost (issue 22), in process: the daemon's own engine
 * (daemon/live/engine.ts) over the bench daemon's market, fed the alert bench's replayed
 * random walk one tick at a time.
 * Every stock gets its first live tick before timing starts (steady state, not the opening).
 * - ticks/s sustained with `screens` live screens (10,000 in the full plan), each run for at
 *   most `seconds` (the machine is shared: short, bounded runs);
 * - CPU per tick (process.cpuUsage, user + system) with no live screen against `cpuScreens`
 *   (1,000), measured in the same run, interleaved after a warm-up round.
 * The screens are a mix of every template (market overrides, per_page 10–200) and inline
 * top-N / threshold queries on price-dependent fields, all distinct (no sharing of compiled
 * screens flatters the figures).
 */
import { createMarketParts, loadSnapshotRows } from '../../daemon/wiring/market.js';
import { INDICATOR_IDS } from '../../daemon/indicators/registry.js';
import { createLiveScreenEngine } from '../../daemon/live/engine.js';
import type { PriceEvent } from '../../daemon/kernel/events.js';
import { parseScreenRequest } from '../../daemon/screening/request.js';
import { executeQuery, type ScreenQuery } from '../../daemon/screening/query.js';
import { buildSnapshot, type Snapshot } from '../../daemon/screening/snapshot.js';
import { applyTemplateOverrides, listTemplates } from '../../daemon/screening/templates.js';
import { openStore, type StoreSettings } from '../../daemon/store/open.js';
import { makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';
import { loadAlertStocks, replayTicks } from './alerts.js';

const SCENARIO = 'live screens (in process)';
const KNOWN = new Set<string>(INDICATOR_IDS);
const SORTS = ['change_percent', 'volume', 'market_cap', 'trading_value', 'per', 'dividend_yield'] as const;
const MARKET_MIX = [undefined, 'KOSPI', 'KOSDAQ'] as const;

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
    const { version, rows } = await loadSnapshotRows(createMarketParts(db));
    return buildSnapshot(rows, INDICATOR_IDS, version);
  } finally {
    await db.close();
  }
}

/** Figures of one replay. */
interface Run {
  ticks: number;
  ticks_per_s: number;
  cpu_us_per_tick: number;
  changes: number;
}

function replay(snapshot: Snapshot, queries: readonly ScreenQuery[], ticks: readonly PriceEvent[], seconds: number): Run {
  const engine = createLiveScreenEngine(snapshot);
  let changes = 0;
  for (const q of queries) engine.add(q, () => void changes++);
  // Steady state: every stock's first live tick (which moves it from the snapshot's day to
  // today's change) is applied before the clock starts, as on a market that has been open a while.
  const first = new Map<string, PriceEvent>();
  for (const t of ticks) if (!first.has(t.code)) first.set(t.code, t);
  engine.onTicks([...first.values()]);
  changes = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  let n = 0;
  // Checked every 64 ticks: bounded wall time on a shared machine.
  while (n < ticks.length && ((n & 63) !== 0 || performance.now() < deadline)) engine.onTicks([ticks[n++]!]);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { ticks: n, ticks_per_s: n / wall, cpu_us_per_tick: (cpu.user + cpu.system) / Math.max(1, n), changes };
}

/** Replay `ticks` into `queries` and count the screens whose members differ from the engine's page on the live view (0 expected). */
export function verifyLiveScreens(snapshot: Snapshot, queries: readonly ScreenQuery[], ticks: readonly PriceEvent[]): number {
  const engine = createLiveScreenEngine(snapshot);
  const handles = queries.map((q) => engine.add(q, () => undefined));
  engine.onTicks(ticks);
  const live = engine.view().snapshot;
  return handles.filter((h) => {
    const expected = executeQuery(live, h.screen.query).items.map((x) => x.code).join();
    return h.members().map((m) => m.code).join() !== expected;
  }).length;
}

/** Figures of the live-screen bench. */
export interface LiveScreenBenchResult {
  stocks: number;
  screens: number;
  cpu_screens: number;
  with_screens: Run;
  cpu_without: Run;
  cpu_with: Run;
}

/** Run the bench on the bench daemon's store. */
export async function runLiveScreenBench(store: StoreSettings, o: { screens: number; cpuScreens: number; ticks: number; seconds: number; verify?: boolean }): Promise<LiveScreenBenchResult> {
  const snapshot = await loadSnapshot(store);
  const ticks = replayTicks(await loadAlertStocks(store), o.ticks);
  const many = liveScreenMix(o.screens);
  // BENCH_LIVE_VERIFY: the figures are only worth something if the members are right.
  if (o.verify) {
    const wrong = verifyLiveScreens(snapshot, many.slice(0, 300), ticks.slice(0, 3000));
    if (wrong > 0) throw new Error(`live screens: ${wrong} of 300 screens differ from POST /screen on the live view`);
  }
  const some = many.slice(0, o.cpuScreens);
  // A warm-up round of each path; only the second counts.
  replay(snapshot, [], ticks, o.seconds / 4);
  replay(snapshot, some, ticks, o.seconds / 4);
  const cpuWithout = replay(snapshot, [], ticks, o.seconds);
  const cpuWith = replay(snapshot, some, ticks, o.seconds);
  const withScreens = replay(snapshot, many, ticks, o.seconds);
  return { stocks: snapshot.size, screens: many.length, cpu_screens: some.length, with_screens: withScreens, cpu_without: cpuWithout, cpu_with: cpuWith };
}

/** Report rows of the live-screen bench (no targets: the issue sets none for these figures). */
export function liveScreenRows(r: LiveScreenBenchResult): ReportRow[] {
  const note = `${r.stocks} stocks, one tick at a time; short bounded runs on a shared machine`;
  return [
    makeRow(SCENARIO, `ticks/s with ${r.screens.toLocaleString('en-US')} live screens`, Math.round(r.with_screens.ticks_per_s), 'ticks/s', null, { note: `${r.with_screens.ticks} ticks, ${r.with_screens.changes} membership changes; ${note}` }),
    makeRow(SCENARIO, 'CPU per tick without live screens', Math.round(r.cpu_without.cpu_us_per_tick * 10) / 10, 'µs'),
    makeRow(SCENARIO, `CPU per tick with ${r.cpu_screens.toLocaleString('en-US')} live screens`, Math.round(r.cpu_with.cpu_us_per_tick * 10) / 10, 'µs', null, { note: `${r.cpu_with.changes} membership changes over ${r.cpu_with.ticks} ticks` }),
  ];
}
