/**
 * An as-of snapshot: the same indicator registry the daily computation fills,
 * computed from what was known on one trading date — bars up to and including it, statements
 * disclosed by then, the halt record of that day — and built into the engine's columnar
 * Snapshot, so the unchanged engine screens the past. Stocks not yet listed on the date are
 * absent; stocks delisted later are present.
 *
 * With a series store (field-series.ts) a date is a column pick of each field's series, then
 * the cross-sectional scores over the stocks listed that day; without one (or for a field no
 * series covers) every stock is computed for the date (as-of-inputs.ts). `checkpoint()` is
 * awaited between units of work so the daemon's thread stays responsive.
 */
import { COMPOSITE_SCORES } from '../indicators/cross-section.js';
import { applyCrossSectionalScores, type IndicatorValues } from '../indicators/compute.js';
import { INDICATOR_IDS } from '../indicators/registry.js';
import { buildSnapshotSliced, type Snapshot, type SnapshotRow } from '../screening/snapshot.js';
import { indicatorsAsOf } from './as-of-inputs.js';
import { SERIES_FIELDS, type SeriesStore } from './field-series.js';
import { designationOn, isListedOn, type MarketHistory } from './market-history.js';
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

/** Values of `fields` (series fields) for the stocks listed on `day`, keyed by code, in history order. */
async function valuesFromSeries(
  history: MarketHistory, day: number, fields: readonly string[], store: SeriesStore, checkpoint: () => Promise<void>,
): Promise<Map<string, IndicatorValues>> {
  const S = history.stocks.length;
  const listed: number[] = [];
  history.stocks.forEach((stock, s) => {
    if (isListedOn(history, stock, day)) listed.push(s);
  });
  const values = listed.map((): IndicatorValues => ({}));
  for (let i = 0; i < fields.length; i += CHUNK) {
    await store.read(fields.slice(i, i + CHUNK), checkpoint, (cols) => {
      for (const [f, m] of cols) {
        const base = day * S;
        for (let k = 0; k < listed.length; k++) {
          const v = m[base + (listed[k] as number)] as number;
          (values[k] as IndicatorValues)[f] = Number.isNaN(v) ? null : v;
        }
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
    for (const f of fields) (values[k] as IndicatorValues)[f] = daily[f] ?? null;
    // Each such cell may be the daily computation over 300 bars (about a millisecond).
    await checkpoint();
  }
  return new Map(listed.map((s, k) => [history.stocks[s]?.record.code ?? '', values[k] as IndicatorValues]));
}

/** Every listed stock's values of `fields` on `day`, cross-sectional scores included when asked for. */
async function valuesAsOf(
  history: MarketHistory, day: number, checkpoint: () => Promise<void>, depth: AsOfDepth, fields: readonly string[], store?: SeriesStore,
): Promise<Map<string, IndicatorValues>> {
  const crossSection = fields.some((f) => CROSS_SECTIONAL.has(f));
  // Names that are no indicator (a formula column, `name` as a sort key) are null columns, as before.
  if (!store || fields.some((f) => INDICATOR_SET.has(f) && !SERIES_FIELDS.has(f) && !CROSS_SECTIONAL.has(f))) {
    return indicatorsAsOf(history, day, checkpoint, depth, crossSection);
  }
  const wanted = [...new Set([...fields.filter((f) => SERIES_FIELDS.has(f)), ...(crossSection ? CROSS_INPUTS : [])])];
  const values = await valuesFromSeries(history, day, wanted, store, checkpoint);
  if (crossSection) applyCrossSectionalScores(values.values());
  return values;
}

/**
 * The as-of snapshot of date index `day`, holding `fields` (default every indicator; a screen or
 * backtest passes the few it reads, which keeps cold dates cheap).
 */
export async function buildAsOfSnapshot(
  history: MarketHistory, day: number, checkpoint: () => Promise<void>, depth: AsOfDepth = 'full',
  fields: readonly string[] = INDICATOR_IDS, store?: SeriesStore,
): Promise<Snapshot> {
  const values = await valuesAsOf(history, day, checkpoint, depth, fields, store);
  const rows: SnapshotRow[] = [];
  for (const [code, v] of values) {
    const s = history.byCode.get(code);
    if (!s) continue;
    const r = s.record;
    const designation = designationOn(s, history.dates[day] ?? '');
    rows.push({
      code, name: r.name, name_english: r.name_english, market: r.market, sector: r.sector, industry: r.industry, board: designation.board,
      flags: { administrative: designation.is_administrative, spac: r.is_spac, preferred: r.is_preferred, halted: s.halts.has(day) },
      values: v,
    });
  }
  // Column by column, yielding between them: every field of a full market is tens of ms of work.
  return buildSnapshotSliced(rows, fields, asOfVersion(history.dates[day] ?? '', history.version, depth), checkpoint);
}
