/**
 * The daily history of a portfolio (pure): its value Σ quantity × close per trading day
 * since each holding's acquisition, and its time-weighted daily returns.
 *
 * A day's return is measured on the positions already held the day before,
 * r(t) = Σ q·(p(t) − p(t−1)) / Σ q·p(t−1), so buying a new holding raises the value
 * but is not counted as performance (the time-weighted return). The current quantities
 * are taken as held since their acquisition dates. A stock without a bar on a day (a
 * halt) keeps its last close.
 */

/** One holding's quantity, acquisition date and daily closes (oldest first). */
export interface PositionHistory {
  code: string;
  quantity: number;
  /** YYYY-MM-DD: the position counts from the first trading day on or after it. */
  acquired_at: string;
  closes: readonly { date: string; close: number }[];
}

/** The daily series of a portfolio. */
export interface ValueSeries {
  /** Trading days, ascending. */
  dates: string[];
  /** Σ quantity × close of the positions held that day. */
  values: number[];
  /** Time-weighted return of each day (index 0 is 0: nothing to compare with). */
  returns: number[];
  /** Cumulative growth of 1 invested on the first day: Π (1 + r). */
  wealth: number[];
}

/** Trading days on which at least one position was held, ascending. */
function tradingDays(positions: readonly PositionHistory[]): string[] {
  const set = new Set<string>();
  for (const p of positions) {
    for (const c of p.closes) if (c.date >= p.acquired_at) set.add(c.date);
  }
  return [...set].sort();
}

/**
 * Each position's close on each day (carried forward over days without a bar), or NaN
 * while not yet held.
 */
function priceMatrix(positions: readonly PositionHistory[], dates: readonly string[]): Float64Array[] {
  return positions.map((p) => {
    const row = new Float64Array(dates.length).fill(Number.NaN);
    let j = 0;
    let last = Number.NaN;
    for (let k = 0; k < dates.length; k++) {
      const day = dates[k]!;
      while (j < p.closes.length && p.closes[j]!.date <= day) last = p.closes[j++]!.close;
      if (day >= p.acquired_at) row[k] = last;
    }
    return row;
  });
}

/** Build the value and return series of a set of positions. */
export function buildValueSeries(positions: readonly PositionHistory[]): ValueSeries {
  const dates = tradingDays(positions);
  const prices = priceMatrix(positions, dates);
  const values: number[] = [];
  const returns: number[] = [];
  const wealth: number[] = [];
  for (let k = 0; k < dates.length; k++) {
    let value = 0;
    let before = 0;
    let after = 0;
    for (let i = 0; i < positions.length; i++) {
      const q = positions[i]!.quantity;
      const p = prices[i]![k]!;
      if (!Number.isNaN(p)) value += q * p;
      const prev = k > 0 ? prices[i]![k - 1]! : Number.NaN;
      if (!Number.isNaN(prev)) {
        before += q * prev;
        after += q * p;
      }
    }
    const r = before > 0 ? after / before - 1 : 0;
    values.push(value);
    returns.push(r);
    wealth.push(k === 0 ? 1 : wealth[k - 1]! * (1 + r));
  }
  return { dates, values, returns, wealth };
}
