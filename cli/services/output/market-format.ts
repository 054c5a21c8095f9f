/**
 * Number formats of market views and the Korean colour convention for price moves:
 * a rise is shown in red and a fall in blue (the opposite of the US green/red).
 */

/** Direction of a change. */
export type Movement = 'up' | 'down' | 'flat';

/** Terminal colour of each movement (Korean convention: red up, blue down). */
export const MOVE_COLOR: Record<Movement, 'red' | 'blue' | undefined> = { up: 'red', down: 'blue', flat: undefined };

/** The help sentence that explains the colours. */
export const COLOR_LEGEND = 'Colours follow the Korean convention: red = up, blue = down.';

/** Direction of `change` (null/undefined/0 → flat). */
export function movement(change: number | null | undefined): Movement {
  if (change === null || change === undefined || !Number.isFinite(change) || change === 0) return 'flat';
  return change > 0 ? 'up' : 'down';
}

/** A number with thousands separators and at most `digits` decimals (KRW prices: 72,000). */
export function num(n: number | null | undefined, digits = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

/** A signed number: +1,000, -500, 0. */
export function signed(n: number | null | undefined, digits = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  return `${n > 0 ? '+' : ''}${num(n, digits)}`;
}

/** A signed percent with two decimals: +1.41%, -0.50%, 0.00%. */
export function pct(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  return `${n > 0 ? '+' : ''}${n.toFixed(2)}%`;
}

/** A compact number for axis labels: 1.2M, 35K, 980. */
export function compact(n: number): string {
  return new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

/** Bytes in binary units: 512 B, 1.5 KiB, 120.3 MiB. */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A cell of a market view: text, and the movement that colours it. */
export interface MarketCell {
  text: string;
  move?: Movement;
  muted?: boolean;
}

/** A signed amount cell coloured by its sign. */
export function moveCell(n: number | null | undefined, format: (n: number | null | undefined) => string = signed): MarketCell {
  return { text: format(n), move: movement(n) };
}

/** Rows of market cells under headers; `right` marks numeric columns (right-aligned). */
export interface MarketTableData {
  headers: string[];
  rows: MarketCell[][];
  right?: boolean[];
}
