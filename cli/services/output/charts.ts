/**
 * Text charts for the terminal (pure): a one-line block sparkline (`▁▂▃▄▅▆▇█`) and a
 * braille line chart, where each character is a 2 × 4 grid of dots, so a chart of
 * `width` × `height` characters plots `2·width` points on `4·height` levels.
 */

const BARS = '▁▂▃▄▅▆▇█';
/** Braille dot bits by [row][column] within one character (Unicode 2800–28FF). */
const DOT = [
  [0x01, 0x08],
  [0x02, 0x10],
  [0x04, 0x20],
  [0x40, 0x80],
] as const;

function range(values: readonly number[]): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}

/**
 * The last `width` values as one bar per value, scaled between their min and max
 * (a flat series is drawn at mid height); non-finite values are skipped.
 */
export function sparkline(values: readonly number[], width = values.length): string {
  const tail = values.filter(Number.isFinite).slice(-Math.max(0, width));
  if (tail.length === 0) return '';
  const { min, max } = range(tail);
  if (max === min) return BARS[3]!.repeat(tail.length);
  return tail.map((v) => BARS[Math.round(((v - min) / (max - min)) * 7)]).join('');
}

/**
 * At most `columns` points: the series split into `columns` equal buckets, each
 * represented by its last value (a daily value series keeps each period's close).
 */
export function resample(values: readonly number[], columns: number): number[] {
  const n = values.length;
  if (n <= columns) return [...values];
  const out: number[] = [];
  for (let i = 0; i < columns; i++) out.push(values[Math.floor(((i + 1) * n) / columns) - 1]!);
  return out;
}

/** Exactly `columns` points: resampled when there are more, linearly interpolated when fewer. */
export function fit(values: readonly number[], columns: number): number[] {
  const n = values.length;
  if (n >= columns || n < 2) return resample(values, columns);
  return Array.from({ length: columns }, (_, x) => {
    const at = (x * (n - 1)) / (columns - 1);
    const i = Math.floor(at);
    const next = values[Math.min(n - 1, i + 1)]!;
    return values[i]! + (next - values[i]!) * (at - i);
  });
}

/** Size of a braille chart in characters. */
export interface ChartSize {
  width: number;
  height: number;
}

/**
 * A braille line chart of `values` (fitted to 2·width points), one string per text
 * row, top row first. Consecutive points are joined by a vertical run of dots in the
 * later column so that the line has no holes. Empty input gives no rows.
 */
export function brailleChart(values: readonly number[], size: ChartSize): string[] {
  const points = fit(values.filter(Number.isFinite), Math.max(1, size.width) * 2);
  if (points.length === 0) return [];
  const levels = Math.max(1, size.height) * 4;
  const { min, max } = range(points);
  const level = (v: number) => (max === min ? Math.floor((levels - 1) / 2) : Math.round(((max - v) / (max - min)) * (levels - 1)));
  const grid = Array.from({ length: levels / 4 }, () => new Array<number>(Math.ceil(points.length / 2)).fill(0));
  const plot = (x: number, y: number) => {
    grid[y >> 2]![x >> 1]! |= DOT[y & 3]![x & 1]!;
  };
  let previous: number | undefined;
  points.forEach((v, x) => {
    const y = level(v);
    if (previous === undefined || previous === y) plot(x, y);
    else for (let r = previous + Math.sign(y - previous); ; r += Math.sign(y - previous)) {
      plot(x, r);
      if (r === y) break;
    }
    previous = y;
  });
  return grid.map((row) => row.map((bits) => String.fromCharCode(0x2800 + bits)).join(''));
}
