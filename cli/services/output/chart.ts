/**
 * A small price chart drawn with block characters: series resampled to the available
 * width, then each column filled in eighths of a cell. Pure; the Ink view is
 * ui/components/PriceChart.tsx.
 */

/** Eighth blocks, from one eighth to a full cell. */
export const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * At most `width` values: the series is cut into `width` equal buckets and each bucket
 * keeps its last value (the close at the end of the period), so the last point stays the latest close.
 */
export function resample(values: readonly number[], width: number): number[] {
  const w = Math.max(1, Math.floor(width));
  if (values.length <= w) return [...values];
  const out: number[] = [];
  for (let i = 1; i <= w; i++) out.push(values[Math.ceil((i * values.length) / w) - 1]!);
  return out;
}

/** One line of eighth blocks, lowest value ▁ and highest █ (a flat series is all ▄). */
export function sparkline(values: readonly number[]): string {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return values.map((v) => BLOCKS[max === min ? 3 : Math.round(((v - min) / (max - min)) * 7)]).join('');
}

/**
 * `height` text rows (top first) of a column chart of `values`: each value fills
 * 1 … height×8 eighths, the minimum one eighth so every column shows.
 */
export function blockRows(values: readonly number[], height: number): string[] {
  const h = Math.max(1, Math.floor(height));
  const levels = h * 8;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const level = (v: number) => (max === min ? levels / 2 : Math.round(((v - min) / (max - min)) * (levels - 1)) + 1);
  const filled = values.map(level);
  const rows: string[] = [];
  for (let r = 0; r < h; r++) {
    const base = (h - 1 - r) * 8;
    rows.push(filled.map((l) => {
      const eighths = Math.min(8, Math.max(0, l - base));
      return eighths === 0 ? ' ' : BLOCKS[eighths - 1];
    }).join(''));
  }
  return rows;
}

/** A dated value. */
export interface ChartPoint {
  date: string;
  value: number;
}

/** What the chart view draws. */
export interface ChartModel {
  rows: string[];
  min: number;
  max: number;
  first: ChartPoint;
  last: ChartPoint;
  /** Change from the first to the last value, in percent. */
  changePercent: number;
}

/** The chart of `points` (oldest first) in `width` × `height` cells, or null for an empty series. */
export function chartModel(points: readonly ChartPoint[], width: number, height: number): ChartModel | null {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return null;
  const values = points.map((p) => p.value);
  return {
    rows: blockRows(resample(values, width), height),
    min: Math.min(...values),
    max: Math.max(...values),
    first,
    last,
    changePercent: first.value === 0 ? 0 : ((last.value - first.value) / first.value) * 100,
  };
}
