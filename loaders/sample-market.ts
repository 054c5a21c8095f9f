/**
 * Deterministic sample KRX market from a seed (no Math.random): the real listed
 * universe (every KOSPI and KOSDAQ issue of KRX's listing of 2026-03-20 — codes,
 * names, English names, markets, boards, sectors, shares outstanding; see
 * sample/universe-data.ts) with generated prices over 500 trading days of the KRX
 * calendar that end near each issue's real close (삼성전자 005930 trades near its
 * real level), on the tick grid inside the daily limits, volume and trading value
 * consistent with price, eight quarters of generated statements, and KOSPI/KOSDAQ
 * composite indexes chain-linked from their constituents, ending at the real
 * composite closes.
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
import { buildFactors, buildIndexSeries, createIndexSums, generateIssueSeries, indexBase } from './sample/prices.js';
import { buildUniverse } from './sample/universe.js';
import { UNIVERSE_DATE, UNIVERSE_INDEX_CLOSE, UNIVERSE_SIZE } from './sample/universe-data.js';
import type { MarketRecords } from './types.js';

/** Options of the generator; every field is optional. */
export interface SampleMarketOptions {
  seed?: number | string;
  /**
   * Number of issues: the largest this many of the listed universe, KOSPI and KOSDAQ in the
   * universe's proportion (default: all of them, 2,769).
   */
  stocks?: number;
  /** Trading days of history (default 500). */
  days?: number;
  /** Last trading day (default 2026-03-20, the date of the real sample files). */
  endDate?: string;
  /** Issues per bar chunk (default 100 ≈ 50,000 bars). */
  chunkStocks?: number;
}

/** Defaults of `SampleMarketOptions`. */
export const SAMPLE_MARKET_DEFAULTS = { seed: 1, days: 500, endDate: UNIVERSE_DATE, chunkStocks: 100 } as const;

/** How many issues the listed universe holds (the most `stocks` can ask for). */
export const SAMPLE_UNIVERSE_SIZE = UNIVERSE_SIZE;

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
  const stocks = options.stocks ?? SAMPLE_UNIVERSE_SIZE;
  const resolved = {
    seed: options.seed ?? SAMPLE_MARKET_DEFAULTS.seed,
    stocks,
    days: options.days ?? SAMPLE_MARKET_DEFAULTS.days,
    endDate: options.endDate ?? SAMPLE_MARKET_DEFAULTS.endDate,
    chunkStocks: options.chunkStocks ?? SAMPLE_MARKET_DEFAULTS.chunkStocks,
  };
  const bad: Record<string, string> = {};
  if (!Number.isInteger(stocks) || stocks < 1 || stocks > SAMPLE_UNIVERSE_SIZE) bad.stocks = `an integer between 1 and ${SAMPLE_UNIVERSE_SIZE} (the listed universe)`;
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
  const issues = buildUniverse(opts.seed, opts.stocks, tradeDates);
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
        ...buildIndexSeries('KOSPI', indexBase(UNIVERSE_INDEX_CLOSE.KOSPI, sums.KOSPI, tradeDates.length), sums.KOSPI, tradeDates),
        ...buildIndexSeries('KOSDAQ', indexBase(UNIVERSE_INDEX_CLOSE.KOSDAQ, sums.KOSDAQ, tradeDates.length), sums.KOSDAQ, tradeDates),
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
