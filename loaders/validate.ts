/**
 * Row validation shared by the loaders. Each check returns a reason string for
 * the first problem found, or null when the record is acceptable.
 */
import { isTradingDay, isValidDate } from '../daemon/kernel/krx-calendar.js';
import { MARKETS, STOCK_CODE_PATTERN } from '../daemon/kernel/records.js';
import type { DailyBar, IndexBar } from '../daemon/kernel/records.js';

/** Reason when `code` is not a 6-character KRX code, else null. */
export function checkCode(code: unknown): string | null {
  return typeof code === 'string' && STOCK_CODE_PATTERN.test(code) ? null : `invalid stock code ${JSON.stringify(code)}`;
}

/** Reason when `market` is not KOSPI or KOSDAQ, else null. */
export function checkMarket(market: unknown): string | null {
  return (MARKETS as readonly unknown[]).includes(market) ? null : `unknown market ${JSON.stringify(market)}`;
}

/** Reason when `date` is not a valid 'YYYY-MM-DD' KRX trading day (weekends, holidays), else null. */
export function checkTradeDate(date: unknown): string | null {
  if (typeof date === 'string' && knownTradingDays.has(date)) return null;
  if (typeof date !== 'string' || !isValidDate(date)) return `invalid date ${JSON.stringify(date)}`;
  if (!isTradingDay(date)) return `${date} is not a KRX trading day`;
  // A quote file repeats one date thousands of times; a history file a few thousand dates.
  if (knownTradingDays.size < 50_000) knownTradingDays.add(date);
  return null;
}

const knownTradingDays = new Set<string>();

function isPositive(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0;
}

function isCount(n: unknown): boolean {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0;
}

/** Reason for the first problem of an OHLC quadruple: positive prices, high ≥ max(open, close), low ≤ min(open, close). */
export function checkOhlc(open: unknown, high: unknown, low: unknown, close: unknown): string | null {
  if (!isPositive(open) || !isPositive(high) || !isPositive(low) || !isPositive(close)) {
    return `prices must be positive numbers (open ${String(open)}, high ${String(high)}, low ${String(low)}, close ${String(close)})`;
  }
  if (high < Math.max(open, close)) return `high ${high} below max(open ${open}, close ${close})`;
  if (low > Math.min(open, close)) return `low ${low} above min(open ${open}, close ${close})`;
  return null;
}

/** Reason for the first problem of a daily bar (code, trading day, OHLC, volume/value ≥ 0), else null. */
export function checkBar(bar: DailyBar): string | null {
  const problem = checkCode(bar.stock_code) ?? checkTradeDate(bar.trade_date)
    ?? checkOhlc(bar.open_price, bar.high_price, bar.low_price, bar.close_price);
  if (problem) return problem;
  if (!isCount(bar.volume) || !Number.isInteger(bar.volume)) return `invalid volume ${String(bar.volume)}`;
  if (!isCount(bar.trading_value)) return `invalid trading value ${String(bar.trading_value)}`;
  if (bar.market_cap !== null && !isCount(bar.market_cap)) return `invalid market cap ${String(bar.market_cap)}`;
  if (bar.shares_outstanding !== null && !isCount(bar.shares_outstanding)) return `invalid shares ${String(bar.shares_outstanding)}`;
  return null;
}

/** Reason for the first problem of an index bar (market, trading day, close > 0, OHLC when given), else null. */
export function checkIndexBar(bar: IndexBar): string | null {
  const problem = checkMarket(bar.market) ?? checkTradeDate(bar.trade_date);
  if (problem) return problem;
  if (!isPositive(bar.close)) return `close must be positive (${String(bar.close)})`;
  if (bar.open !== null && bar.high !== null && bar.low !== null) return checkOhlc(bar.open, bar.high, bar.low, bar.close);
  if ([bar.open, bar.high, bar.low].some((v) => v !== null && !isPositive(v))) return 'open/high/low must be positive when given';
  return null;
}
