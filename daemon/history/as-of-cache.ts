/**
 * The as-of service's built snapshots, least recently used first, bounded by bytes (its own
 * limit, and the shared memory budget it counts against under `as_of_snapshots`). A snapshot
 * being built is kept too, so concurrent requests for one date share its build; it counts once
 * built, and only then may be dropped.
 */
import type { MemoryBudget } from '../screening/engine/memory-budget.js';
import type { Snapshot } from '../screening/engine/snapshot.js';

/** Rough bytes of a snapshot (columns dominate: 9 bytes a value). */
export function snapshotBytes(s: Snapshot): number {
  return s.size * (s.fields.length * 9 + 200) + 4096;
}

interface Entry {
  snapshot: Promise<Snapshot>;
  /** 0 until built. */
  bytes: number;
  used: number;
}

/** Snapshots by key (Map order is the LRU order). */
export class SnapshotCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  constructor(private readonly memory: MemoryBudget, private readonly limit: number) {
    memory.hold('as_of_snapshots', {
      bytes: () => this.held,
      oldest: () => this.firstBuilt()?.[1].used,
      dropOldest: () => {
        const first = this.firstBuilt();
        if (first) this.drop(first[0]);
      },
    });
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.held;
  }

  /** The snapshot kept under `key` (now the most recently used), or undefined. */
  get(key: string): Promise<Snapshot> | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    hit.used = this.memory.stamp();
    return hit.snapshot;
  }

  /** Keep `snapshot` (being built) under `key`: counted once built, forgotten if its build fails. */
  add(key: string, snapshot: Promise<Snapshot>): void {
    const entry: Entry = { snapshot, bytes: 0, used: this.memory.stamp() };
    this.entries.set(key, entry);
    snapshot.then(
      (s) => {
        if (this.entries.get(key) !== entry) return;
        entry.bytes = snapshotBytes(s);
        this.held += entry.bytes;
        while (this.held > this.limit && this.entries.size > 1) this.drop(this.entries.keys().next().value as string);
        this.memory.fit();
      },
      () => this.drop(key),
    );
  }

  /** Drop every entry whose key does not end with `suffix` (another data version's). */
  keepOnly(suffix: string): void {
    for (const key of [...this.entries.keys()]) if (!key.endsWith(suffix)) this.drop(key);
  }

  private firstBuilt(): [string, Entry] | undefined {
    for (const e of this.entries) if (e[1].bytes > 0) return e;
    return undefined;
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.held -= e.bytes;
    this.entries.delete(key);
  }
}
