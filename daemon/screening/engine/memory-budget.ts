/**
 * One byte budget for every cache of screening data in a daemon: the indicator series over the
 * whole history, the as-of snapshots, the formula and rank memo, the answers kept in process,
 * and the series being built right now. Each cache keeps its own entries in least-recently-used
 * order and tells the budget what it holds; when the sum (plus the bytes reserved by work in
 * flight) goes over the limit, the budget drops the entry last used longest ago, whichever cache
 * holds it. So a user who fills one cache (a new as-of date each time, every field) takes room
 * from the others' oldest entries instead of growing the process: the daemon's memory is the
 * budget plus what it holds outside caches (the market history, the live snapshot, requests).
 */

/** Default limit (config `memory_budget_mb`). */
export const MEMORY_BUDGET_BYTES = 320 * 1024 * 1024;

/** A cache whose entries count against the budget. */
export interface MemoryHolder {
  /** Bytes its entries hold now. */
  bytes(): number;
  /** The use stamp (MemoryBudget.stamp) of its least recently used entry that may be dropped; undefined when none may. */
  oldest(): number | undefined;
  /** Drop that entry (its bytes leave `bytes()`). */
  dropOldest(): void;
}

/** What the budget holds, for /metrics, logs and the benchmark. */
export interface MemoryBudgetStats {
  limit: number;
  /** Held by the caches plus reserved. */
  used: number;
  /** Reserved by work in flight (series being built). */
  reserved: number;
  /** Bytes by cache name. */
  holders: Record<string, number>;
}

/** The shared budget. */
export interface MemoryBudget {
  readonly limit: number;
  /** Count `holder`'s entries under `name` (one holder per name: a second replaces the first). */
  hold(name: string, holder: MemoryHolder): void;
  /** A use stamp: larger is more recent, across every holder. */
  stamp(): number;
  /**
   * Drop the least recently used entries, across holders, until their bytes plus the reserved
   * ones plus `extra` fit the limit or nothing more may be dropped.
   */
  fit(extra?: number): void;
  /**
   * Count `bytes` about to be allocated by work in flight (making room for them first); call the
   * returned function once they are counted by a holder or freed. Idempotent release.
   */
  reserve(bytes: number): () => void;
  stats(): MemoryBudgetStats;
}

/** Create a budget of `limit` bytes. */
export function createMemoryBudget(limit = MEMORY_BUDGET_BYTES): MemoryBudget {
  const holders = new Map<string, MemoryHolder>();
  let clock = 0;
  let reserved = 0;
  const held = (): number => {
    let sum = 0;
    for (const h of holders.values()) sum += h.bytes();
    return sum;
  };
  const fit = (extra = 0): void => {
    while (held() + reserved + extra > limit) {
      let victim: MemoryHolder | undefined;
      let oldest = Number.POSITIVE_INFINITY;
      for (const h of holders.values()) {
        const t = h.oldest();
        if (t !== undefined && t < oldest) {
          oldest = t;
          victim = h;
        }
      }
      if (!victim) return;
      victim.dropOldest();
    }
  };
  return {
    limit,
    hold: (name, holder) => void holders.set(name, holder),
    stamp: () => ++clock,
    fit,
    reserve(bytes) {
      fit(bytes);
      reserved += bytes;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        reserved -= bytes;
      };
    },
    stats() {
      const out: Record<string, number> = {};
      for (const [name, h] of holders) out[name] = h.bytes();
      return { limit, used: held() + reserved, reserved, holders: out };
    },
  };
}
