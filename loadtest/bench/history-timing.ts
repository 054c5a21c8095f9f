/**
 * Screening through time, timed in process over a bench database (issue 23): read the history,
 * an as-of complex screen cold (first request for the date: the as-of snapshot is built) and
 * warm (from the snapshot LRU), and backtests of a template — monthly over up to two years and
 * weekly over up to half a year (shorter when the loaded history is). CPU from /proc via
 * process.cpuUsage (this process only: the bench runs the work here).
 */
import { join } from 'node:path';
import { createBacktestService } from '../../daemon/backtest/backtest-service.js';
import { backtestRequestSchema } from '../../daemon/backtest/request.js';
import type { BacktestResult } from '../../daemon/backtest/types.js';
import { createMarketParts } from '../../daemon/wiring/market.js';
import { createAsOfService } from '../../daemon/history/as-of-service.js';
import { loadMarketHistory } from '../../daemon/history/history-loader.js';
import type { MarketHistory } from '../../daemon/history/market-history.js';
import { INDICATOR_IDS } from '../../daemon/indicators/registry.js';
import { executeQuery } from '../../daemon/screening/query.js';
import { parseScreenRequest } from '../../daemon/screening/request.js';
import type { BacktestsRepo, StoredBacktest } from '../../daemon/store/backtests-repo.js';
import { openSqlite } from '../../daemon/store/sqlite.js';
import { Histogram } from '../histogram.js';
import { complexBodies } from '../scenarios/screen-bodies.js';
import { makeRow } from '../targets.js';
import type { ReportRow, Target } from '../types.js';

/** Issue 23's targets on this machine. */
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
    async create(_u, id, request, total, status) {
      runs.set(id, { id, status, done: 0, total, request, result: null, error: null, created_at: '', finished_at: null });
      return { ok: true };
    },
    claim: async (id) => (set(id, { status: 'running' }), true),
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

async function timeBacktest(history: MarketHistory, rebalance: 'monthly' | 'weekly', tradingDays: number, template: string): Promise<{ ms: number; cpu: number; result: BacktestResult; from: string }> {
  const asOf = createAsOfService({ version: () => history.version, loadHistory: async () => history });
  const backtests = createBacktestService({
    asOf, parseScreen: (b) => parseScreenRequest(b, new Set(INDICATOR_IDS)), presetQuery: async () => undefined, repo: memoryRepo(), riskFreeRate: 0.03,
  });
  const from = history.dates[Math.max(0, history.dates.length - 1 - tradingDays)] ?? '';
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const run = await backtests.start({ id: 'bench', tier: 'enterprise' }, backtestRequestSchema.parse({ template, from, rebalance, top: 20 }));
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
    const parts = createMarketParts(db);
    const version = (await parts.indicators.latestRun())?.version ?? 'none';
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    history = await loadMarketHistory(parts, version);
    rows.push(makeRow('history', 'history read', performance.now() - t0, 'ms', null, { note: `${history.stocks.length} stocks × ${history.dates.length} dates, ${cpuMs(cpu)} ms CPU` }));
  } finally {
    await db.close();
  }
  rows.push(...(await asOfRows(history, o.warmIterations)));
  const template = o.template ?? 'value';
  for (const [rebalance, days] of [['monthly', 504], ['weekly', 126]] as const) {
    const r = await timeBacktest(history, rebalance, days, template);
    const target = rebalance === 'monthly' && r.result.rebalances.length >= 20 ? HISTORY_TARGETS.backtestMonthlyS : null;
    rows.push(makeRow('history', `backtest ${template} ${rebalance}`, r.ms / 1000, 's', target, {
      note: `${r.from}…${r.result.to}: ${r.result.rebalances.length} rebalances, top 20, ${r.cpu} ms CPU${target ? '' : ' (target judged on a two-year monthly run)'}`,
    }));
  }
  return rows;
}

async function asOfRows(history: MarketHistory, iterations: number): Promise<ReportRow[]> {
  const asOf = createAsOfService({ version: () => history.version, loadHistory: async () => history });
  const date = history.dates[Math.max(0, history.dates.length - 40)] ?? '';
  const query = parseScreenRequest({ ...complexBodies(false).shapeB(), as_of: date }, new Set(INDICATOR_IDS));
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  let total = executeQuery((await asOf.snapshotAt(date)).snapshot, query).total;
  const cold = performance.now() - t0;
  const coldCpu = cpuMs(cpu);
  const h = new Histogram();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    total = executeQuery((await asOf.snapshotAt(date)).snapshot, query).total;
    h.record((performance.now() - t) * 1000); // µs: the histogram holds integers
  }
  const s = h.summary();
  return [
    makeRow('history', 'as-of complex screen cold', cold, 'ms', HISTORY_TARGETS.asOfColdMs, { note: `as of ${date}: builds the as-of snapshot (${history.stocks.length} stocks), ${coldCpu} ms CPU, ${total} matches` }),
    makeRow('history', 'as-of complex screen warm p50', (s.p50 ?? NaN) / 1000, 'ms'),
    makeRow('history', 'as-of complex screen warm p99', (s.p99 ?? NaN) / 1000, 'ms', HISTORY_TARGETS.asOfWarmMs, { note: `${iterations} screens from the as-of LRU` }),
  ];
}
