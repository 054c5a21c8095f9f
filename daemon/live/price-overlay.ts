/**
 * The live price view: the indicator snapshot with the price-dependent columns of every
 * stock that has traded since recomputed at its live price. This is the precise meaning of
 * "the same prices" for live screens: a live screen's members are what the screening engine
 * answers on this view, and `POST /screen?prices=live` answers on the very same view (the
 * plain `POST /screen` answers on the indicator snapshot, i.e. at the last computed close).
 *
 * With P the live price, C the snapshot close and r = P / C (only when C > 0):
 * - from the tick itself: close = P, change, change_percent, volume, trading_value, open, high, low;
 * - market_cap × r; per, pbr, psr, por, peg, graham_ratio × r; earnings_yield, dividend_yield ÷ r
 *   (each is linear in the price with the statements fixed, see indicators/fundamentals.ts);
 * - enterprise_value + (new cap − old cap); ev_ebit at the new EV (null when it is not > 0);
 * - turnover = volume / shares_outstanding × 100.
 * Everything else (returns, averages, relative_volume, scores) keeps its snapshot value.
 *
 * The snapshot is never mutated: the view holds copies of the price-dependent columns and
 * writes into them, so expressions compiled against the view read live values.
 */
import type { PriceEvent } from '../kernel/events.js';
import { isNullAt, type Column, type Snapshot } from '../screening/engine/snapshot.js';

/** Fields taken from the tick as they are. */
const DIRECT_FIELDS = ['close', 'change', 'change_percent', 'volume', 'trading_value', 'open', 'high', 'low'] as const;
/** Fields proportional to the price. */
const SCALED_FIELDS = ['market_cap', 'per', 'pbr', 'psr', 'por', 'peg', 'graham_ratio'] as const;
/** Fields inversely proportional to the price. */
const INVERSE_FIELDS = ['earnings_yield', 'dividend_yield'] as const;

/** Every field a tick can change (the live evaluator's index keys screens on these). */
export const PRICE_DEPENDENT_FIELDS: readonly string[] = Object.freeze([
  ...DIRECT_FIELDS, ...SCALED_FIELDS, ...INVERSE_FIELDS, 'enterprise_value', 'ev_ebit', 'turnover',
]);

/** A live view over one indicator snapshot. */
export interface LiveView {
  /** The indicator snapshot the view was built on. */
  readonly base: Snapshot;
  /** The snapshot at live prices (same rows, copies of the price-dependent columns). */
  readonly snapshot: Snapshot;
  /** Write one tick into the view; returns the stock's row, or undefined for an unknown stock. */
  apply(event: PriceEvent): number | undefined;
}

interface MutableColumn {
  values: Float64Array;
  nulls: Uint8Array;
}

function copyColumn(column: Column): MutableColumn {
  return { values: new Float64Array(column.values), nulls: new Uint8Array(column.nulls) };
}

/** Create the view of `base` with no live price applied yet (it then equals `base`). */
export function createLiveView(base: Snapshot): LiveView {
  const columns = new Map<string, Column>(base.columns);
  const live = new Map<string, MutableColumn>();
  for (const field of PRICE_DEPENDENT_FIELDS) {
    const column = base.columns.get(field);
    if (!column) continue;
    const copy = copyColumn(column);
    live.set(field, copy);
    // `count` is the snapshot's coverage figure; the view reports the same.
    columns.set(field, { values: copy.values, nulls: copy.nulls, count: column.count });
  }
  const snapshot: Snapshot = Object.freeze({ ...base, columns });
  const baseValue = (field: string, row: number): number | null => {
    const column = base.columns.get(field);
    return column === undefined || isNullAt(column, row) ? null : (column.values[row] ?? null);
  };
  const write = (field: string, row: number, value: number | null) => {
    const column = live.get(field);
    if (!column) return;
    const ok = value !== null && Number.isFinite(value);
    column.values[row] = ok ? value : Number.NaN;
    const bit = 1 << (row & 7);
    const byte = column.nulls[row >>> 3] ?? 0;
    column.nulls[row >>> 3] = ok ? byte & ~bit : byte | bit;
  };
  return {
    base,
    snapshot,
    apply(event) {
      const row = base.rowByCode.get(event.code);
      if (row === undefined) return undefined;
      writeTick(event, row, write);
      writeDerived(event, row, baseValue, write);
      return row;
    },
  };
}

type Write = (field: string, row: number, value: number | null) => void;
type Read = (field: string, row: number) => number | null;

function writeTick(e: PriceEvent, row: number, write: Write): void {
  write('close', row, e.price);
  write('change', row, e.change);
  write('change_percent', row, e.change_percent);
  write('volume', row, e.volume);
  write('trading_value', row, e.trading_value);
  write('open', row, e.open);
  write('high', row, e.high);
  write('low', row, e.low);
}

function writeDerived(e: PriceEvent, row: number, read: Read, write: Write): void {
  const shares = read('shares_outstanding', row);
  write('turnover', row, shares !== null && shares > 0 ? (e.volume / shares) * 100 : read('turnover', row));
  const close = read('close', row);
  if (close === null || close <= 0) return;
  const r = e.price / close;
  for (const field of SCALED_FIELDS) {
    const v = read(field, row);
    write(field, row, v === null ? null : v * r);
  }
  for (const field of INVERSE_FIELDS) {
    const v = read(field, row);
    write(field, row, v === null ? null : v / r);
  }
  const cap = read('market_cap', row);
  const ev = read('enterprise_value', row);
  if (cap === null || ev === null) return;
  const liveEv = ev + cap * r - cap;
  write('enterprise_value', row, liveEv);
  const evEbit = read('ev_ebit', row);
  // ev_ebit = EV / EBIT with EBIT > 0 fixed by the statements: recover it from the snapshot's pair.
  if (evEbit !== null && evEbit > 0 && ev > 0) write('ev_ebit', row, liveEv > 0 ? liveEv / (ev / evEbit) : null);
}
