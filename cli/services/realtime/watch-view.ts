/**
 * What the `watch` screen shows, derived from its state (pure): the quote table, the
 * order book of the selected row, the alert lines, the connection badge and the market
 * status line.
 */
import { sparkline } from '../output/charts.js';
import { movement, num, pct, signed, type MarketCell, type MarketTableData, type Movement } from '../output/market-format.js';
import type { WatchAlert, WatchBook, WatchRow, WatchState } from './watch-state.js';
import type { ConnectionStatus } from '../transport/ws-client.js';
import { formatDuration } from '../output/duration.js';

/** The quote table: code, name, price, change, change %, volume and a sparkline per stock. */
export function quoteTable(rows: readonly WatchRow[], sparkWidth: number): MarketTableData {
  return {
    headers: ['CODE', 'NAME', 'PRICE', 'CHANGE', 'CHG %', 'VOLUME', 'TREND'],
    right: [false, false, true, true, true, true, false],
    rows: rows.map((r) => {
      const move = movement(r.change);
      const trend = r.history.slice(-sparkWidth);
      return [
        { text: r.code },
        { text: r.name || '…', muted: !r.name },
        { text: num(r.price), move },
        { text: signed(r.change), move },
        { text: pct(r.change_percent), move },
        { text: num(r.volume) },
        { text: sparkline(trend, sparkWidth), move: trend.length > 1 ? movement(trend[trend.length - 1]! - trend[0]!) : 'flat' },
      ];
    }),
  };
}

/** One order book line. */
export interface BookLine {
  side: 'ask' | 'bid';
  price: string;
  quantity: string;
  /** Korean HTS colours: asks (sell orders) blue, bids (buy orders) red. */
  move: Movement;
}

/** Up to `depth` levels each side: asks from the highest down to the best, then bids from the best down. */
export function bookLines(book: WatchBook | undefined, depth: number): BookLine[] {
  if (!book) return [];
  const asks = book.asks.slice(0, depth).reverse().map((l): BookLine => ({ side: 'ask', price: num(l.price), quantity: num(l.quantity), move: 'down' }));
  const bids = book.bids.slice(0, depth).map((l): BookLine => ({ side: 'bid', price: num(l.price), quantity: num(l.quantity), move: 'up' }));
  return [...asks, ...bids];
}

/** An alert as one line: time, code, condition and price. */
export function alertLine(a: WatchAlert): string {
  const time = a.timestamp ? a.timestamp.slice(11, 19) : '--:--:--';
  if (a.alert_type === 'screen_enter') return `${time}  ${a.code}  + 편입 at ${num(a.current_price)}  ${a.message}`;
  if (a.alert_type === 'screen_exit') return `${time}  ${a.code}  − 이탈  ${a.message}`;
  return `${time}  ${a.code}  ${a.alert_type} ${num(a.threshold)} → ${num(a.current_price)}  ${a.message}`;
}

/** The connection badge: text and whether it is healthy; a reconnect wait counts down to `nowMs`. */
export function connectionBadge(status: ConnectionStatus, nowMs: number = Date.now()): MarketCell & { healthy: boolean } {
  switch (status.state) {
    case 'connecting':
      return { text: status.attempt > 1 ? `connecting (attempt ${status.attempt})…` : 'connecting…', healthy: false };
    case 'connected':
      return { text: status.restoreFailed ? `connected, new session (old one ${status.restoreFailed})` : 'connected', healthy: true };
    case 'restored':
      return { text: `restored with ${status.estimated ? '~' : ''}${status.missed} missed${status.historyTruncated ? ' (snapshot sent)' : ''}`, healthy: true };
    case 'reconnecting':
      return { text: `reconnecting in ${countdown(status, nowMs)} (attempt ${status.attempt}): ${status.reason}`, healthy: false };
    case 'closed':
      return { text: `closed: ${status.reason}`, healthy: false };
  }
}

/** What is left of a reconnect wait, in whole seconds once it is a second or more (so it ticks). */
function countdown(status: Extract<ConnectionStatus, { state: 'reconnecting' }>, nowMs: number): string {
  const left = Math.max(0, status.delayMs - (status.since === undefined ? 0 : nowMs - status.since));
  return left >= 1000 ? `${Math.ceil(left / 1000)}s` : formatDuration(left);
}

/** Market status per market, e.g. "KOSPI open · KOSDAQ closed" (empty until a status arrives). */
export function marketLine(markets: WatchState['markets']): string {
  return Object.entries(markets)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([market, s]) => `${market} ${s.status.replace(/_/g, ' ')}`)
    .join(' · ');
}
