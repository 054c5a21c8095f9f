/** Weekly and monthly bars from daily ones: first open, max high, min low, last close, summed volume and value. */
import type { DailyBar } from '../kernel/records.js';

/** Monday of the ISO week of a YYYY-MM-DD date. */
function weekKey(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  const dow = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - dow);
  return d.toISOString().slice(0, 10);
}

/** Aggregate daily bars (oldest first) into week or month bars dated by their last trading day. */
export function aggregateBars(bars: readonly DailyBar[], interval: 'week' | 'month'): DailyBar[] {
  const out: DailyBar[] = [];
  let key = '';
  for (const b of bars) {
    const k = interval === 'week' ? weekKey(b.trade_date) : b.trade_date.slice(0, 7);
    const cur = out[out.length - 1];
    if (cur && k === key) {
      cur.trade_date = b.trade_date;
      cur.high_price = Math.max(cur.high_price, b.high_price);
      cur.low_price = Math.min(cur.low_price, b.low_price);
      cur.close_price = b.close_price;
      cur.volume += b.volume;
      cur.trading_value += b.trading_value;
      cur.market_cap = b.market_cap;
      cur.shares_outstanding = b.shares_outstanding;
    } else {
      out.push({ ...b });
      key = k;
    }
  }
  return out;
}
