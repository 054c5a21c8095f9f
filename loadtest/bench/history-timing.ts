/**
 * Screening through time, timed in process over a bench database: read the history;
 * an as-of complex screen first ever (no indicator series yet: it builds the ones it reads);
 * the background series build; the first screen of several new dates (series built) and warm
 * (from the snapshot LRU); backtests of templates, monthly and weekly over up to two years, each
 * on a service of its own (the run builds its series). CPU from /proc via process.cpuUsage
 * (this process only: the bench runs the work here).
 */
import { join } from 'node:path';
import { createBacktestService } from '../../daemon/backtest/backtest-service.js';
import { BacktestRequest } from '../../daemon/contract/backtests.js';
import type { BacktestResult } from '../../daemon/backtest/types.js';
import { createMarketStore } from '../../daemon/wiring/store.js';
import { createAsOfService, type AsOfService } from '../../daemon/history/as-of-service.js';
import { loadMarketHistory } from '../../daemon/history/history-loader.js';
import type { MarketHistory } from '../../daemon/history/market-history.js';
import { INDICATOR_IDS } from '../../daemon/indicators/registry.js';
import { executeQuery, indicatorFieldsOf, type ScreenQuery } from '../../daemon/screening/engine/query.js';
import { parseScreenRequest } from '../../daemon/screening/request/request.js';
import type { BacktestsRepo, StoredBacktest } from '../../daemon/store/backtests-repo.js';
import { openSqlite } from '../../daemon/store/sqlite.js';
import { Histogram } from '../histogram.js';
import { complexBodies } from '../scenarios/screen-bodies.js';
import { makeRow } from '../targets.js';
import type { ReportRow, Target } from '../types.js';

/** The as-of screen and backtest targets on this machine. */
export const HISTORY_TARGETS = {
  asOfColdMs: { op: '<', value: 50, source: 'issue' },
  asOfWarmMs: { op: '<', value: 2, source: 'issue' },
  backtestMonthlyS: { op: '<', value: 2, source: 'issue' },
} as const satisfies Record<string, Target>;

/** Options of the history bench. */
export interface HistoryBenchOptions {
  /** Warm as-of screens timed. */
  warmIterations: number;
  template?: string;
}

const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return Math.round((d.user + d.system) / 1000);
};

/** A repository that keeps runs in memory (the bench times the run, not the storage). */
function memoryRepo(): BacktestsRepo {
  const runs = new Map<string, StoredBacktest>();
  const set = (id: string, patch: Partial<StoredBacktest>) => void Object.assign(runs.get(id)!, patch);
  return {
    async create(_u, id, request, total, status, _caps, phase) {
      runs.set(id, { id, status, phase: phase ?? (status === 'queued' ? 'queued' : 'reading_history'), done: 0, total, request, result: null, error: null, created_at: '', finished_at: null });
      return { ok: true };
    },
    claim: async (id) => (set(id, { status: 'running' }), true),
    planned: async (id, total) => (set(id, { total }), true),
    phase: async (id, phase) => (set(id, { phase }), true),
    progress: async () => true,
    async finish(id, outcome) {
      set(id, 'result' in outcome ? { status: 'completed', result: outcome.result } : { status: 'failed', error: outcome.error });
    },
    requeue: async (id) => set(id, { status: 'queued' }),
    cancel: async () => false,
    get: async (_u, id) => runs.get(id),
    list: async () => [...runs.values()],
  };
}

/** A fresh as-of service over `history`: `warm` builds the default series in the background, else none. */
function asOfOver(history: MarketHistory, warm: boolean) {
  return createAsOfService({ version: () => history.version, loadHistory: async () => history, ...(warm ? {} : { warmFields: [] }) });
}

async function timeBacktest(
  history: MarketHistory, asOf: AsOfService, rebalance: 'monthly' | 'weekly', tradingDays: number, template: string,
): Promise<{ ms: number; cpu: number; result: BacktestResult; from: string }> {
  const backtests = createBacktestService({
    asOf, parseScreen: (b) => parseScreenRequest(b, new Set(INDICATOR_IDS)), presetQuery: async () => undefined, repo: memoryRepo(), riskFreeRate: 0.03,
  });
  const from = history.dates[Math.max(0, history.dates.length - 1 - tradingDays)] ?? '';
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const run = await backtests.start({ id: 'bench', tier: 'enterprise' }, BacktestRequest.parse({ template, from, rebalance, top: 20 }));
  await backtests.idle();
  const stored = await backtests.get('bench', run.id);
  if (stored?.status !== 'completed') throw new Error(`bench backtest failed: ${stored?.error ?? 'unknown'}`);
  return { ms: performance.now() - t0, cpu: cpuMs(cpu), result: stored.result as BacktestResult, from };
}

/** Rows of the history bench (scenario `history`). */
export async function historyRows(dataDir: string, o: HistoryBenchOptions): Promise<ReportRow[]> {
  const db = await openSqlite(join(dataDir, 'stockscreen.db'));
  let history: MarketHistory;
  const rows: ReportRow[] = [];
  try {
    const parts = createMarketStore(db);
    const version = (await parts.indicators.latestRun())?.version ?? 'none';
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    history = await loadMarketHistory(parts, version);
    rows.push(makeRow('history', 'history read', performance.now() - t0, 'ms', null, { note: `${history.stocks.length} stocks × ${history.dates.length} dates, ${cpuMs(cpu)} ms CPU` }));
  } finally {
    await db.close();
  }
  const { rows: asOfFigures, warmed } = await asOfRows(history, o.warmIterations);
  rows.push(...asOfFigures);
  const templates = o.template ? [o.template] : ['value', 'momentum'];
  // Each template on a fresh service (no series: the run builds the ones its screen reads, as the
  // first backtest after a start or a new data version does), then on the warmed service.
  for (const [label, service] of [['series built by the run', () => asOfOver(history, false)], ['series built', () => warmed]] as const) {
    for (const template of templates) {
      for (const rebalance of ['monthly', 'weekly'] as const) {
        const r = await timeBacktest(history, service(), rebalance, 504, template);
        const target = rebalance === 'monthly' && r.result.rebalances.length >= 20 ? HISTORY_TARGETS.backtestMonthlyS : null;
        rows.push(makeRow('history', `backtest ${template} ${rebalance}, ${label === 'series built' ? 'warm' : 'fresh'}`, r.ms / 1000, 's', target, {
          note: `${r.from}…${r.result.to}: ${r.result.rebalances.length} rebalances, top 20, ${r.cpu} ms CPU, ${label}`,
        }));
      }
    }
  }
  return rows;
}

/** One as-of screen of `date`: wall ms, CPU ms, matches. */
async function timeScreen(asOf: AsOfService, date: string, parsed?: ScreenQuery): Promise<{ ms: number; cpu: number; total: number }> {
  const query = parsed ?? parseScreenRequest({ ...complexBodies(false).shapeB(), as_of: date }, KNOWN);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const total = executeQuery((await asOf.snapshotAt(date, indicatorFieldsOf(query, KNOWN))).snapshot, query).total;
  return { ms: performance.now() - t0, cpu: cpuMs(cpu), total };
}

const KNOWN: ReadonlySet<string> = new Set(INDICATOR_IDS);
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function asOfRows(history: MarketHistory, iterations: number): Promise<{ rows: ReportRow[]; warmed: AsOfService }> {
  const rows: ReportRow[] = [];
  const n = history.dates.length;
  const date = (back: number) => history.dates[Math.max(0, n - back)] ?? '';
  // 1. The first as-of screen after a start, before any series exists (no background build).
  const first = await timeScreen(asOfOver(history, false), date(40));
  rows.push(makeRow('history', 'as-of complex screen, first ever', first.ms, 'ms', null, {
    note: `no series yet: builds the ${indicatorFieldsOf(parseScreenRequest(complexBodies(false).shapeB(), KNOWN), KNOWN).length} fields it reads, ${first.cpu} ms CPU`,
  }));
  // 2. The background build after the history read, then the first screen of new dates.
  const asOf = asOfOver(history, true);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await asOf.warmed();
  const series = asOf.stats().series;
  rows.push(makeRow('history', 'series background build', performance.now() - t0, 'ms', null, {
    note: `${series?.fields ?? 0} fields, ${mb(series?.bytes ?? 0)} MB, ${cpuMs(cpu)} ms CPU, time-sliced (≤ 4 ms a slice)`,
  }));
  const colds = [];
  for (const back of [40, 60, 120, 250, 400]) colds.push({ back, ...(await timeScreen(asOf, date(back))) });
  const sorted = [...colds].sort((a, b) => a.ms - b.ms);
  const median = sorted[Math.floor(sorted.length / 2)] ?? { ms: NaN, cpu: NaN, total: 0 };
  rows.push(makeRow('history', 'as-of complex screen cold', median.ms, 'ms', HISTORY_TARGETS.asOfColdMs, {
    note: `median of ${colds.length} new dates (${colds.map((c) => `${Math.round(c.ms * 10) / 10} ms / ${c.cpu} ms CPU`).join(', ')}), series built, ${median.total} matches`,
  }));
  // 3. Warm: the same date again, from the snapshot LRU.
  const h = new Histogram();
  const cpuHist = new Histogram();
  // Parsed once, as the daemon's body memo does for a repeated body.
  const query = parseScreenRequest({ ...complexBodies(false).shapeB(), as_of: date(40) }, KNOWN);
  for (let i = 0; i < iterations; i++) {
    const c = process.cpuUsage();
    h.record((await timeScreen(asOf, date(40), query)).ms * 1000); // µs: the histogram holds integers
    const d = process.cpuUsage(c);
    cpuHist.record(d.user + d.system);
  }
  const s = h.summary();
  const sc = cpuHist.summary();
  rows.push(
    makeRow('history', 'as-of complex screen warm p50', (s.p50 ?? NaN) / 1000, 'ms', null, { note: `CPU p50 ${(sc.p50 ?? NaN) / 1000} ms` }),
    makeRow('history', 'as-of complex screen warm p99', (s.p99 ?? NaN) / 1000, 'ms', HISTORY_TARGETS.asOfWarmMs, {
      note: `${iterations} screens from the as-of LRU; CPU p99 ${(sc.p99 ?? NaN) / 1000} ms (wall includes waiting for a core on a loaded machine)`,
    }),
    makeRow('history', 'rss after as-of screens', mb(process.memoryUsage().rss), 'MB', null, { note: `series fallback cells: ${asOf.stats().series?.fallbackCells ?? 0}` }),
  );
  return { rows, warmed: asOf };
}
