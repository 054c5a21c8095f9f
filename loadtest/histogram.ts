/**
 * A log-linear histogram in the manner of HdrHistogram: integer values (the caller picks the
 * unit, e.g. microseconds), exact below 128, then 128 linear sub-buckets per power of two,
 * so any percentile is within 1/128 (< 0.8 %) of the true sample. Fixed memory (26 KB),
 * O(1) record, mergeable, serialisable for worker threads.
 *
 * The class is self-contained (no imports, no module-level references) on purpose: the
 * WebSocket load workers receive its source text (`Histogram.toString()`).
 */

/** Serialised form: sparse [index, count] pairs plus the exact extremes and sum. */
export interface HistogramJSON {
  counts: [number, number][];
  total: number;
  min: number;
  max: number;
  sum: number;
}

/** Percentile summary in the recorded unit. */
export interface HistogramSummary {
  count: number;
  min: number | null;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

/** The histogram. Values below 0 count as 0; values above 2^32 − 1 as 2^32 − 1. */
export class Histogram {
  static readonly MAX_VALUE = 4294967295;
  // Indexes: [0, 128) exact; then (k − 6) × 128 + sub for values in [2^k, 2^(k+1)), k = 7..31.
  readonly counts = new Float64Array((32 - 7 + 1) * 128);
  total = 0;
  min = Infinity;
  max = -Infinity;
  sum = 0;

  /** Bucket index of an integer value. */
  static indexOf(value: number): number {
    if (value < 128) return value;
    const k = 31 - Math.clz32(value);
    const shift = k - 7;
    return (shift + 1) * 128 + ((value >>> shift) - 128);
  }

  /** Largest value that falls into bucket `index` (HdrHistogram's "highest equivalent value"). */
  static highestOf(index: number): number {
    if (index < 128) return index;
    const shift = Math.floor(index / 128) - 1;
    const sub = index % 128;
    return (128 + sub + 1) * 2 ** shift - 1;
  }

  /** Record one value (rounded to an integer) `times` times. */
  record(value: number, times = 1): void {
    const v = Math.min(Histogram.MAX_VALUE, Math.max(0, Math.round(value)));
    this.counts[Histogram.indexOf(v)]! += times;
    this.total += times;
    this.sum += v * times;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  /**
   * Record a value measured under a fixed request schedule, back-filling the samples a
   * stalled server kept from being sent (coordinated-omission correction, as HdrHistogram's
   * recordValueWithExpectedInterval): value − interval, value − 2 × interval, … while ≥ interval.
   */
  recordCorrected(value: number, expectedInterval: number): void {
    this.record(value);
    if (!(expectedInterval > 0)) return;
    for (let missing = value - expectedInterval; missing >= expectedInterval; missing -= expectedInterval) this.record(missing);
  }

  /** The value at percentile `p` (0–100): the smallest bucket holding at least p % of the samples, capped at the maximum. */
  percentile(p: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(0, p)) / 100) * this.total));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.max, Math.max(this.min, Histogram.highestOf(i)));
    }
    return this.max;
  }

  mean(): number | null {
    return this.total === 0 ? null : this.sum / this.total;
  }

  /** Add every sample of `other`. */
  merge(other: Histogram | HistogramJSON): void {
    const json = other instanceof Histogram ? other.toJSON() : other;
    for (const [i, c] of json.counts) this.counts[i]! += c;
    this.total += json.total;
    this.sum += json.sum;
    if (json.total > 0) {
      this.min = Math.min(this.min, json.min);
      this.max = Math.max(this.max, json.max);
    }
  }

  toJSON(): HistogramJSON {
    const counts: [number, number][] = [];
    for (let i = 0; i < this.counts.length; i++) if (this.counts[i]! > 0) counts.push([i, this.counts[i]!]);
    return { counts, total: this.total, min: this.total ? this.min : 0, max: this.total ? this.max : 0, sum: this.sum };
  }

  /** Summary with every figure divided by `scale` (e.g. 1000 to report microseconds as ms). */
  summary(scale = 1): HistogramSummary {
    const div = (v: number | null) => (v === null ? null : v / scale);
    return {
      count: this.total,
      min: div(this.total ? this.min : null),
      mean: div(this.mean()),
      p50: div(this.percentile(50)),
      p95: div(this.percentile(95)),
      p99: div(this.percentile(99)),
      max: div(this.total ? this.max : null),
    };
  }

  /** A histogram from its serialised form. */
  static fromJSON(json: HistogramJSON): Histogram {
    const h = new Histogram();
    h.merge(json);
    return h;
  }
}
