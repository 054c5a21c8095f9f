/**
 * An as-of snapshot: the same indicator registry the daily computation fills,
 * computed from what was known on one trading date — bars up to and including it, statements
 * disclosed by then, the halt record of that day — and built into the engine's columnar
 * Snapshot, so the unchanged engine screens the past. Stocks not yet listed on the date are
 * absent; stocks delisted later are present.
 *
 * With a series store (field-series.ts) a date is a column pick of each field's series, then
 * the cross-sectional scores over the stocks listed that day; without one (or for a field no
 * series covers) every stock is computed for the date (as-of-inputs.ts). `seriesPay` says which
 * costs less. Either way the values go straight into typed columns. `checkpoint()` is awaited
 * between units of work so the daemon's thread stays responsive.
 */
import { COMPOSITE_SCORES } from '../indicators/cross-section.js';
import { applyCrossSectionalScoresAsync, type IndicatorValues } from '../indicators/compute.js';
import { INDICATOR_IDS } from '../indicators/registry.js';
import { buildSnapshotSliced, type Snapshot, type SnapshotRow } from '../screening/engine/snapshot.js';
import { stockIndicatorsAsOf } from './as-of-inputs.js';
import { SERIES_FIELDS, type SeriesStore } from './field-series.js';
import { designationOn, isListedOn, type MarketHistory, type StockHistory } from './market-history.js';
import type { AsOfDepth } from './point-indicators.js';

export { AS_OF_HISTORY_DAYS, indicatorsAsOf, seriesAsOf } from './as-of-inputs.js';

/** The version string of the as-of snapshot of `date` over data version `version`. */
export function asOfVersion(date: string, version: string, depth: AsOfDepth = 'full'): string {
  return `asof:${date}:${version}${depth === 'point' ? ':point' : ''}`;
}

/** Scores computed across all stocks (skipped when a snapshot holds none of them). */
const CROSS_SECTIONAL = new Set(['value_score', 'quality_score', 'growth_score', 'momentum_score', 'overall_score', 'magic_formula_rank']);

/** The fields the cross-sectional scores read. */
const CROSS_INPUTS = [...new Set([...Object.values(COMPOSITE_SCORES).flatMap((s) => s.components.map((c) => c.id)), 'ev_ebit', 'return_on_capital'])];

const INDICATOR_SET: ReadonlySet<string> = new Set(INDICATOR_IDS);

/**
 * Series fetched at a time: a full-field snapshot does not hold every series at once, and a
 * chunk missing from the store is what one build allocates (≈11 MB a field on a full market).
 */
const CHUNK = 8;

/**
 * What computing one date for every stock (as-of-inputs.ts) costs, in series builds of one field
 * over the whole history (field-series.ts). Measured on the sample market of 2,700 stocks × 500
 * days: a date of every field 1.5 s of CPU, its 'point' fields 0.16 s; a field's series 0.08 to
 * 1 s, 0.37 s on average (fundamental fields ≈0.2 s).
 */
const DATE_COST_IN_FIELDS: Readonly<Record<AsOfDepth, number>> = { full: 4, point: 0.75 };

/** The series fields a snapshot of `fields` reads: its own and, for a cross-sectional score, their inputs. */
function seriesFieldsOf(fields: readonly string[]): string[] {
  const crossSection = fields.some((f) => CROSS_SECTIONAL.has(f));
  return [...new Set([...fields.filter((f) => SERIES_FIELDS.has(f)), ...(crossSection ? CROSS_INPUTS : [])])];
}

/**
 * Whether `dates` snapshots of `fields` cost less from the series than computed date by date:
 * the series missing from `store` are built once and every date after is a column pick, so they
 * pay when few are missing or many dates will read them. Never when the fields would not fit
 * half the store's memory budget together: they would then evict each other date after date
 * (every field of a full market is ≈1.1 GB of series), and each date would rebuild them all.
 */
export function seriesPay(store: SeriesStore, fields: readonly string[], depth: AsOfDepth, dates: number): boolean {
  if (fields.some((f) => INDICATOR_SET.has(f) && !SERIES_FIELDS.has(f) && !CROSS_SECTIONAL.has(f))) return false;
  const wanted = seriesFieldsOf(fields);
  if (!store.fits(wanted)) return false;
  return store.missing(wanted).length <= DATE_COST_IN_FIELDS[depth] * dates;
}

/**
 * Columns of `fields` (series fields) for the stocks `listed` on `day`, each in `listed` order
 * (NaN = null), picked from the series: no object per stock.
 */
async function columnsFromSeries(
  history: MarketHistory, day: number, listed: readonly number[], fields: readonly string[], store: SeriesStore, checkpoint: () => Promise<void>,
): Promise<Map<string, Float64Array>> {
  const S = history.stocks.length;
  const out = new Map<string, Float64Array>();
  for (let i = 0; i < fields.length; i += CHUNK) {
    await store.read(fields.slice(i, i + CHUNK), checkpoint, (cols) => {
      const base = day * S;
      for (const [f, m] of cols) {
        const column = new Float64Array(listed.length);
        for (let k = 0; k < listed.length; k++) column[k] = m[base + (listed[k] as number)] as number;
        out.set(f, column);
      }
    });
    await checkpoint();
  }
  // Halt and gap days: the daily code's values, computed for this day only.
  const row = new Map(listed.map((s, k) => [s, k]));
  for (const s of store.irregular(day)) {
    const k = row.get(s);
    if (k === undefined) continue;
    const daily = store.dailyValues(s, day, fields);
    for (const f of fields) (out.get(f) as Float64Array)[k] = daily[f] ?? Number.NaN;
    // Each such cell may be the daily computation over 300 bars (about a millisecond).
    await checkpoint();
  }
  return out;
}

/** The registry fields a snapshot of `fields` takes from each stock's own computation (the cross-sectional scores' inputs included when it holds a score). */
function perStockFieldsOf(fields: readonly string[]): string[] {
  const crossSection = fields.some((f) => CROSS_SECTIONAL.has(f));
  return [...new Set([...fields.filter((f) => INDICATOR_SET.has(f) && !CROSS_SECTIONAL.has(f)), ...(crossSection ? CROSS_INPUTS : [])])];
}

/**
 * Columns of `fields` for the stocks `listed` on `day`, each stock computed for the date
 * (as-of-inputs.ts): its values are copied into the columns at once, so no object of values
 * per stock outlives its own computation (a date of every field would otherwise hold 2,700
 * objects of 100 values across every yield, and the collector would promote them).
 */
async function columnsComputed(
  history: MarketHistory, day: number, listed: readonly number[], depth: AsOfDepth, fields: readonly string[], checkpoint: () => Promise<void>,
): Promise<Map<string, Float64Array>> {
  const date = history.dates[day] ?? '';
  const columns = fields.map(() => new Float64Array(listed.length));
  for (let k = 0; k < listed.length; k++) {
    const v = stockIndicatorsAsOf(history, history.stocks[listed[k] as number] as StockHistory, day, depth, date);
    for (let i = 0; i < fields.length; i++) {
      const x = v[fields[i] as string];
      (columns[i] as Float64Array)[k] = typeof x === 'number' ? x : Number.NaN;
    }
    await checkpoint();
  }
  return new Map(fields.map((f, i) => [f, columns[i] as Float64Array]));
}

/** The cross-sectional scores of the stocks in `columns` (their inputs), as columns in the same order. */
async function crossSectionalColumns(columns: ReadonlyMap<string, Float64Array>, size: number, checkpoint: () => Promise<void>): Promise<Map<string, Float64Array>> {
  // The scores are computed over objects of their inputs only (a dozen fields a stock).
  const values = Array.from({ length: size }, () => {
    const v: IndicatorValues = {};
    return v;
  });
  for (const f of CROSS_INPUTS) {
    const column = columns.get(f);
    for (let k = 0; k < size; k++) {
      const x = column?.[k] ?? Number.NaN;
      (values[k] as IndicatorValues)[f] = Number.isNaN(x) ? null : x;
    }
  }
  await applyCrossSectionalScoresAsync(values, checkpoint);
  const out = new Map<string, Float64Array>();
  for (const f of CROSS_SECTIONAL) out.set(f, Float64Array.from(values, (v) => v[f] ?? Number.NaN));
  return out;
}

/** The snapshot row of stock `s` on `day` with `values` (empty when the columns are given apart). */
function rowOf(history: MarketHistory, stock: StockHistory, day: number, values: IndicatorValues): SnapshotRow {
  const r = stock.record;
  const designation = designationOn(stock, history.dates[day] ?? '');
  return {
    code: r.code, name: r.name, name_english: r.name_english, market: r.market, sector: r.sector, industry: r.industry, board: designation.board,
    flags: { administrative: designation.is_administrative, spac: r.is_spac, preferred: r.is_preferred, halted: stock.halts.has(day) },
    values,
  };
}

const NO_VALUES: IndicatorValues = Object.freeze({});

/**
 * An as-of date's values before they become the engine's snapshot: the stocks listed that day
 * (indexes into history.stocks) and a column of each field in that order (NaN = null). What the
 * as-of thread computes and hands back (as-of-thread.ts).
 */
export interface AsOfColumns {
  listed: readonly number[];
  columns: Map<string, Float64Array>;
}

/**
 * The columns of the as-of snapshot of date index `day` holding `fields`: picked from the series
 * of `store` (built when missing) when given and every field has one, else every stock computed
 * for the date. Both give the same values.
 */
export async function asOfColumns(
  history: MarketHistory, day: number, checkpoint: () => Promise<void>, depth: AsOfDepth, fields: readonly string[], store?: SeriesStore,
): Promise<AsOfColumns> {
  const listed: number[] = [];
  history.stocks.forEach((stock, s) => {
    if (isListedOn(history, stock, day)) listed.push(s);
  });
  const crossSection = fields.some((f) => CROSS_SECTIONAL.has(f));
  // Names that are no indicator (a formula column, `name` as a sort key) are null columns, as before.
  const columns = !store || fields.some((f) => INDICATOR_SET.has(f) && !SERIES_FIELDS.has(f) && !CROSS_SECTIONAL.has(f))
    ? await columnsComputed(history, day, listed, depth, perStockFieldsOf(fields), checkpoint)
    : await columnsFromSeries(history, day, listed, seriesFieldsOf(fields), store, checkpoint);
  if (crossSection) for (const [f, c] of await crossSectionalColumns(columns, listed.length, checkpoint)) columns.set(f, c);
  return { listed, columns };
}

/** The engine's snapshot of date index `day` from its columns (`asOfColumns`). */
export function snapshotOfColumns(
  history: MarketHistory, day: number, depth: AsOfDepth, fields: readonly string[], values: AsOfColumns, checkpoint: () => Promise<void>,
): Promise<Snapshot> {
  const version = asOfVersion(history.dates[day] ?? '', history.version, depth);
  const rows = values.listed.map((s) => rowOf(history, history.stocks[s] as StockHistory, day, NO_VALUES));
  // Column by column, yielding between them: every field of a full market is tens of ms of work.
  return buildSnapshotSliced(rows, fields, version, checkpoint, (f) => values.columns.get(f));
}

/**
 * The as-of snapshot of date index `day`, holding `fields` (default every indicator; a screen or
 * backtest passes the few it reads, which keeps cold dates cheap). With `store`, its columns are
 * picked from the series (built when missing; the as-of service passes a store only when
 * `seriesPay`); without, every stock is computed for the date. Both give the same values.
 */
export async function buildAsOfSnapshot(
  history: MarketHistory, day: number, checkpoint: () => Promise<void>, depth: AsOfDepth = 'full',
  fields: readonly string[] = INDICATOR_IDS, store?: SeriesStore,
): Promise<Snapshot> {
  return snapshotOfColumns(history, day, depth, fields, await asOfColumns(history, day, checkpoint, depth, fields, store), checkpoint);
}
