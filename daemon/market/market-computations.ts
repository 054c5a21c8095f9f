/**
 * The computations over a stored market: every stock's indicators (read a few stocks at a time,
 * computed under a time budget, so the event loop is never held for more than a few
 * milliseconds), and the cap-weighted index of markets whose index was not loaded (a day at a time).
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { applyCrossSectionalScoresAsync, computeStockIndicators, type StockSeries } from '../indicators/compute.js';
import type { IndicatorValues } from '../indicators/registry.js';
import type { Db } from '../store/db.js';
import type { FinancialsRepo } from '../store/financials-repo.js';
import type { IndexRepo } from '../store/index-repo.js';
import type { IndicatorRun, IndicatorsRepo } from '../store/indicators-repo.js';
import type { PricesRepo } from '../store/prices-repo.js';
import type { StocksRepo } from '../store/stocks-repo.js';
import { createCapWeightedIndexBuilder } from './cap-weighted-index.js';
import { MARKETS, type DailyBar, type IndexBar, type Market } from '../kernel/records.js';

/** Progress of a computation: (done, total). */
export type ProgressFn = (done: number, total: number) => void | Promise<void>;

/** The repositories the computations read and write. */
export interface ComputationRepos {
  stocks: StocksRepo;
  prices: PricesRepo;
  financials: FinancialsRepo;
  index: IndexRepo;
  indicators: IndicatorsRepo;
}

/** History the indicators need: 252 trading days for 12-month figures plus slack. */
const HISTORY_DAYS = 300;
/**
 * Bars per read during the computation. The sqlite driver turns a whole result into JS
 * objects in one callback on the main thread (~5 µs a row: 25 stocks × 260 days held the
 * event loop ~30 ms), so a read covers as many stocks as fit ~750 bars of history.
 */
const BARS_PER_READ = 750;
/** Most stocks per read (bounds the financial rows read alongside). */
const MAX_STOCKS_PER_READ = 50;
/** Longest stretch of indicator computation (ms) before the event loop gets a turn. */
const SLICE_MS = 4;
/** Least time between two progress reports (each is a Redis write for a job). */
const PROGRESS_MS = 250;

/** Recompute every stock's indicators and record a new snapshot version. */
export async function computeIndicators(repos: ComputationRepos, onProgress?: ProgressFn): Promise<IndicatorRun> {
  const started = Date.now();
  const [stocks, halts, latest, from] = await Promise.all([
    repos.stocks.all(),
    repos.prices.latestHalts(),
    repos.prices.latestDate(),
    repos.prices.nthLatestDate(HISTORY_DAYS),
  ]);
  const asOf = maxDate(latest, ...[...halts.values()].map((h) => h.trade_date));
  const index = Object.fromEntries(await Promise.all(MARKETS.map(async (m) => [m, await repos.index.series(m)] as const)));
  const out = new Map<string, IndicatorValues>();
  // Read a few stocks at a time and compute under a time budget: no single step holds
  // the event loop for more than a few milliseconds. Stocks per read: sized from
  // the longest history a stock can have, then from what the reads return (a market with
  // 10 days of history reads many stocks at a time).
  let group = Math.max(1, Math.floor(BARS_PER_READ / HISTORY_DAYS));
  let reportedAt = -Infinity;
  for (let i = 0; i < stocks.length; ) {
    const chunk = stocks.slice(i, i + group);
    i += chunk.length;
    const codes = chunk.map((s) => s.code);
    const [rows, financials] = await Promise.all([repos.prices.barsFor(codes, from ?? ''), repos.financials.all(codes)]);
    const bars = groupBy(rows);
    group = Math.min(MAX_STOCKS_PER_READ, Math.max(1, Math.floor(BARS_PER_READ / Math.max(1, rows.length / chunk.length))));
    let sliceStart = performance.now();
    for (const s of chunk) {
      const halt = halts.get(s.code);
      const series: StockSeries = {
        code: s.code,
        market: s.market,
        bars: bars.get(s.code) ?? [],
        financials: financials.get(s.code) ?? [],
        shares_outstanding: halt?.shares_outstanding ?? s.shares_outstanding,
        last_close: halt?.last_close ?? null,
        market_cap: halt?.market_cap ?? null,
        halted: halt !== undefined && halt.trade_date === asOf,
      };
      out.set(s.code, computeStockIndicators(series, index[s.market], asOf ?? '9999-12-31'));
      if (performance.now() - sliceStart >= SLICE_MS) {
        await yieldToLoop();
        sliceStart = performance.now();
      }
    }
    if (onProgress && (i === stocks.length || performance.now() - reportedAt >= PROGRESS_MS)) {
      reportedAt = performance.now();
      await onProgress(i, stocks.length);
    }
  }
  await applyCrossSectionalScoresAsync(out.values(), yieldToLoop);
  const run: IndicatorRun = {
    version: `${asOf ?? 'none'}:${randomUUID().slice(0, 8)}`,
    as_of: asOf,
    stocks: out.size,
    duration_ms: Date.now() - started,
    computed_at: new Date().toISOString(),
  };
  await repos.indicators.replaceAll(out, run);
  return run;
}

/** Fill the index series of markets with no loaded index from their constituents (read a day at a time). */
export async function fillComputedIndex(db: Db, repos: ComputationRepos): Promise<number> {
  const markets: Market[] = [];
  for (const market of MARKETS) if ((await repos.index.loadedDays(market)) === 0) markets.push(market);
  if (markets.length === 0) return 0;
  const stocks = await repos.stocks.all();
  const runs = markets.map((market) => ({ builder: createCapWeightedIndexBuilder(market, stocks), series: [] as IndexBar[] }));
  // One day of a full market (~2,700 bars) per read, then a turn for the event loop:
  // reading every bar at once would hold it for seconds on a full history.
  for (const date of await repos.prices.tradeDates()) {
    const bars = await repos.prices.barsOn(date);
    for (const run of runs) {
      const bar = run.builder.addDay(date, bars);
      if (bar) run.series.push(bar);
    }
    await yieldToLoop();
  }
  let written = 0;
  for (const run of runs) written += await db.transaction((tx) => repos.index.upsert(tx, run.series, true));
  return written;
}

function maxDate(...dates: (string | null)[]): string | null {
  let max: string | null = null;
  for (const d of dates) if (d && (!max || d > max)) max = d;
  return max;
}

function groupBy(bars: DailyBar[]): Map<string, DailyBar[]> {
  const out = new Map<string, DailyBar[]>();
  for (const b of bars) {
    let list = out.get(b.stock_code);
    if (!list) out.set(b.stock_code, (list = []));
    list.push(b);
  }
  return out;
}
