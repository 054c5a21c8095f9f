/**
 * Deterministic sample KRX market from a seed (no Math.random): ≈2,700 issues
 * (≈950 KOSPI, ≈1,750 KOSDAQ) over 500 trading days of the KRX calendar, with
 * prices on the tick grid inside the daily limits, volume and trading value
 * consistent with price, eight quarters of statements, and KOSPI/KOSDAQ
 * composite indexes chain-linked from their constituents.
 *
 * Output is a generator of chunks so a caller can insert in batches without
 * holding the whole market (≈1.35M bars) twice: first one chunk with every
 * stock, then one chunk per `chunkStocks` issues (their bars, halts and
 * financials), then one chunk with both index series. Every issue draws from
 * its own seeded stream, so the data does not depend on the chunk size.
 */
import { invalidRequest } from '../daemon/errors.js';
import { isValidDate, tradingDaysEndingAt } from '../daemon/kernel/krx-calendar.js';
import type { StockRecord } from '../daemon/kernel/records.js';
import { generateFinancials, reportedQuarters } from './sample/financials.js';
import { buildFactors, buildIndexSeries, createIndexSums, generateIssueSeries } from './sample/prices.js';
import { buildUniverse } from './sample/universe.js';
import type { MarketRecords } from './types.js';

/** Options of the generator; every field is optional. */
export interface SampleMarketOptions {
  seed?: number | string;
  /** Number of issues (default 2,700). */
  stocks?: number;
  /** How many of them are KOSPI issues (default stocks × 950 / 2,700). */
  kospi?: number;
  /** Trading days of history (default 500). */
  days?: number;
  /** Last trading day (default 2026-03-20, the date of the real sample files). */
  endDate?: string;
  /** Issues per bar chunk (default 100 ≈ 50,000 bars). */
  chunkStocks?: number;
}

/** Defaults of `SampleMarketOptions`. */
export const SAMPLE_MARKET_DEFAULTS = { seed: 1, stocks: 2_700, days: 500, endDate: '2026-03-20', chunkStocks: 100 } as const;

/** Index level on the day before the first generated day. */
const INDEX_BASE = { KOSPI: 2_650, KOSDAQ: 850 } as const;

/** One batch of generated records; `stocks` are complete records. */
export interface SampleMarketChunk extends MarketRecords {
  stocks: StockRecord[];
}

/** A generated market: its issues and calendar up front, the bulk data on demand. */
export interface SampleMarket {
  readonly options: Readonly<Required<SampleMarketOptions>>;
  readonly tradeDates: readonly string[];
  readonly stocks: readonly StockRecord[];
  /** Yields stocks, then bars/halts/financials per issue batch, then the indexes. Restartable. */
  chunks(): Generator<SampleMarketChunk>;
}

function resolveOptions(options: SampleMarketOptions): Required<SampleMarketOptions> {
  const stocks = options.stocks ?? SAMPLE_MARKET_DEFAULTS.stocks;
  const resolved = {
    seed: options.seed ?? SAMPLE_MARKET_DEFAULTS.seed,
    stocks,
    kospi: options.kospi ?? Math.round((stocks * 950) / 2_700),
    days: options.days ?? SAMPLE_MARKET_DEFAULTS.days,
    endDate: options.endDate ?? SAMPLE_MARKET_DEFAULTS.endDate,
    chunkStocks: options.chunkStocks ?? SAMPLE_MARKET_DEFAULTS.chunkStocks,
  };
  const bad: Record<string, string> = {};
  if (!Number.isInteger(stocks) || stocks < 1) bad.stocks = 'an integer ≥ 1';
  if (!Number.isInteger(resolved.kospi) || resolved.kospi < 0 || resolved.kospi > stocks) bad.kospi = 'an integer between 0 and stocks';
  if (!Number.isInteger(resolved.days) || resolved.days < 1) bad.days = 'an integer ≥ 1';
  if (!isValidDate(resolved.endDate)) bad.endDate = 'a YYYY-MM-DD date';
  if (!Number.isInteger(resolved.chunkStocks) || resolved.chunkStocks < 1) bad.chunkStocks = 'an integer ≥ 1';
  if (Object.keys(bad).length > 0) throw invalidRequest('invalid sample market options', bad);
  return resolved;
}

const emptyChunk = (): SampleMarketChunk => ({ stocks: [], bars: [], halts: [], financials: [], index: [] });

/**
 * Builds the issue list and calendar of a sample market (cheap); bars are made by `chunks()`.
 * @throws AppError INVALID_REQUEST for invalid options.
 */
export function createSampleMarket(options: SampleMarketOptions = {}): SampleMarket {
  const opts = resolveOptions(options);
  const tradeDates = tradingDaysEndingAt(opts.endDate, opts.days);
  const issues = buildUniverse(opts.seed, opts.stocks, opts.kospi, tradeDates);
  const periods = reportedQuarters(tradeDates.at(-1) ?? opts.endDate);
  function* chunks(): Generator<SampleMarketChunk> {
    yield { ...emptyChunk(), stocks: issues.map((i) => ({ ...i.record })) };
    const factors = buildFactors(opts.seed, tradeDates.length);
    const sums = { KOSPI: createIndexSums(tradeDates.length), KOSDAQ: createIndexSums(tradeDates.length) };
    for (let from = 0; from < issues.length; from += opts.chunkStocks) {
      const chunk = emptyChunk();
      for (const issue of issues.slice(from, from + opts.chunkStocks)) {
        const series = generateIssueSeries(opts.seed, issue, factors, tradeDates, sums[issue.record.market]);
        for (const bar of series.bars) chunk.bars.push(bar);
        for (const halt of series.halts) chunk.halts.push(halt);
        chunk.financials.push(...generateFinancials(opts.seed, issue, series.lastClose, periods));
      }
      yield chunk;
    }
    yield {
      ...emptyChunk(),
      index: [
        ...buildIndexSeries('KOSPI', INDEX_BASE.KOSPI, sums.KOSPI, tradeDates),
        ...buildIndexSeries('KOSDAQ', INDEX_BASE.KOSDAQ, sums.KOSDAQ, tradeDates),
      ],
    };
  }
  return { options: opts, tradeDates, stocks: issues.map((i) => i.record), chunks };
}

/**
 * Shorthand: the chunks of `createSampleMarket(options)`.
 * @throws AppError INVALID_REQUEST for invalid options.
 */
export function generateSampleMarket(options: SampleMarketOptions = {}): Generator<SampleMarketChunk> {
  return createSampleMarket(options).chunks();
}
