/**
 * The one form every price indicator is written in: a kernel computes its fields on bars
 * `from`..`to` of one stock, each bar's value over the daily window that ends at that bar. The
 * daily snapshot runs a kernel for the latest bar only (`latestBar`); the as-of series run it for
 * every bar (`everyBar`). Both therefore execute the same arithmetic in the same order, so the
 * values are equal bit for bit, and an indicator is added in one place (a kernel in the
 * PRICE_KERNELS registry) plus its registry field entry.
 *
 * A kernel whose value depends on where its window starts (a recursive EMA or Wilder chain,
 * seeded at the first bar it reads) is marked `chain`: `everyBar` restarts it for each bar's
 * own window. The others read only a bounded tail and run once over all bars.
 */
import type { IndicatorPatch } from './registry.js';

/** Trading days the daily computation reads (indicators over the last 300 bars). */
export const WINDOW = 300;

/** What the daily snapshot knows about its day beyond the bars; absent for the as-of series. */
export interface Today {
  /** Effective close: the last bar's, or the stock's last close when halted today (null: none). */
  readonly close: number | null;
  /** Halted today: nothing traded, so today's bar fields are empty and event flags 0. */
  readonly halted: boolean;
  /** The computation date (YYYY-MM-DD), which may lie after the last bar. */
  readonly asOf: string;
}

/** Daily bars as typed columns, oldest first (trading value in `value`). */
export interface OhlcvColumns {
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
  readonly value: Float64Array;
}

/** One stock's bars as typed columns, oldest first (NaN: none). */
export interface Bars extends OhlcvColumns {
  /** Trade date of each bar (YYYY-MM-DD). */
  readonly dates: readonly string[];
  /** The market index close on each bar's date (NaN: none); null without index data. */
  readonly index: Float64Array | null;
  /** Most bars a value may read back from its own bar (itself included). */
  readonly window: number;
  /** The daily snapshot's day; null when every bar is a regular trading day (the as-of series). */
  readonly today: Today | null;
  /** Plain copies for the kernels that call the series functions (made on first use). */
  plain(): PlainColumns;
}

/** The columns the series functions take as plain arrays. */
export interface PlainColumns {
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
}

/** Where values go: bar e's value of a field at `cols.get(field)[e - base]` (absent: not wanted). */
export interface KernelOut {
  readonly base: number;
  readonly cols: ReadonlyMap<string, Float64Array>;
}

/** One definition of a group of price indicators computed together. */
export interface PriceKernel {
  readonly fields: readonly string[];
  /** The value depends on the first bar of the window (a seeded recursion). */
  readonly chain: boolean;
  /**
   * Writes the wanted fields on bars from..to. A chain starts at bar `start`; any other
   * kernel reads at most `span(b, start, e)` bars ending at e.
   */
  run(b: Bars, start: number, from: number, to: number, out: KernelOut): void;
}

/** A number or NaN for null (and for any non-finite value). */
export const num = (v: number | null | undefined): number => (v != null && Number.isFinite(v) ? v : Number.NaN);
/** null for NaN. */
export const val = (v: number | undefined): number | null => (v === undefined || Number.isNaN(v) ? null : v);
/** Bars readable at e in a window starting at `start`. */
export const span = (b: Bars, start: number, e: number): number => Math.min(e - start + 1, b.window);

/** Store `fn(e)` for bars from..to when the field is wanted. */
export function fill(out: KernelOut, field: string, from: number, to: number, fn: (e: number) => number | null | undefined): void {
  const a = out.cols.get(field);
  if (a) for (let e = from; e <= to; e++) a[e - out.base] = num(fn(e));
}

/** Whether any of `fields` is wanted. */
export const wants = (out: KernelOut, fields: readonly string[]): boolean => fields.some((f) => out.cols.has(f));

/** The last min(span, k) values up to bar e, as the series functions take them. */
export function tailAt(x: readonly number[], b: Bars, start: number, e: number, k: number): number[] {
  return x.slice(e - Math.min(span(b, start, e), k) + 1, e + 1);
}

/** The close a level is compared with on bar e: the effective close on the daily snapshot's day. */
export const closeOn = (b: Bars, e: number): number | null => (b.today ? b.today.close : val(b.close[e]));

/** Every wanted field of `kernels` on every bar of `b` (each array as long as the bars, NaN-filled). */
export function everyBar(kernels: readonly PriceKernel[], b: Bars, cols: ReadonlyMap<string, Float64Array>): void {
  const last = b.close.length - 1;
  const out: KernelOut = { base: 0, cols };
  if (last < 0) return;
  for (const k of kernels) {
    if (!wants(out, k.fields)) continue;
    if (!k.chain) {
      k.run(b, 0, 0, last, out);
      continue;
    }
    // Bars before `window` share the window that starts at the first bar: one pass serves them.
    k.run(b, 0, 0, Math.min(last, b.window - 1), out);
    for (let e = b.window; e <= last; e++) k.run(b, e - b.window + 1, e, e, out);
  }
}

/** One cell per field, reused by latestBar: it runs for every stock of a market, synchronously. */
let latestCells: { kernels: readonly PriceKernel[]; cols: Map<string, Float64Array> } | undefined;

/** Every field of `kernels` on the last bar of `b` (the daily snapshot; no bars: the day's own fields). */
export function latestBar(kernels: readonly PriceKernel[], b: Bars): IndicatorPatch {
  if (latestCells?.kernels !== kernels) {
    const cells = new Float64Array(kernels.reduce((n, k) => n + k.fields.length, 0));
    let i = 0;
    const cols = new Map<string, Float64Array>();
    for (const k of kernels) for (const f of k.fields) cols.set(f, cells.subarray(i, ++i));
    latestCells = { kernels, cols };
  }
  const { cols } = latestCells;
  for (const a of cols.values()) a[0] = Number.NaN;
  const e = b.close.length - 1;
  const out: KernelOut = { base: e, cols };
  for (const k of kernels) k.run(b, 0, e, e, out);
  const patch: Record<string, number | null> = {};
  for (const [f, a] of cols) patch[f] = val(a[0]);
  return patch as IndicatorPatch;
}
