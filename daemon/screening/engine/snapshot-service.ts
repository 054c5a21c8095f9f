/**
 * Holds the current screening snapshot and swaps in a new one atomically when a
 * new indicator version is announced. Rows come from an
 * injected loader, so this module stays free of storage and transport code.
 *
 * The build runs on the daemon's thread in time slices (never block the
 * event loop for more than a few milliseconds): queries keep reading the old
 * snapshot, which is replaced by one assignment once the new one is complete.
 * A failed load or build leaves the old snapshot in place.
 */
import { buildSnapshotSliced, emptySnapshot, type Snapshot, type SnapshotRow } from './snapshot.js';
import { createTimeSlicer, type SliceStats, type TimeSlicerOptions } from './time-slicer.js';

/** Collaborators of the snapshot service. */
export interface SnapshotServiceDeps {
  fields: readonly string[];
  /** Loads every stock's row and the version they belong to. */
  loadRows(): Promise<{ version: string; rows: SnapshotRow[] }>;
  onSwap?(snapshot: Snapshot, stats: SnapshotBuildStats): void;
  /** Time slicing of the build (budget, clock, yield); defaults suit the daemon. */
  slicing?: TimeSlicerOptions;
}

/** Figures of the last swap-in (for the benchmark and logs). */
export interface SnapshotBuildStats extends SliceStats {
  version: string;
  stocks: number;
  fields: number;
  /** Time spent in loadRows (storage reads and JSON parsing, themselves sliced by the repository). */
  load_ms: number;
  /** Time of the sliced build, yields included (= total_ms). */
  build_ms: number;
}

/** The live snapshot holder. */
export interface SnapshotService {
  current(): Snapshot;
  /**
   * Rebuild from storage unless `version` is already current; concurrent calls share one
   * rebuild. Rejects with the loader's or builder's error; the old snapshot then stays.
   */
  refresh(version?: string): Promise<Snapshot>;
  /** Figures of the last build that was swapped in, undefined before the first. */
  lastBuild(): SnapshotBuildStats | undefined;
}

/** Create the snapshot holder (starts empty until the first refresh). */
export function createSnapshotService(deps: SnapshotServiceDeps): SnapshotService {
  let current = emptySnapshot(deps.fields);
  let stats: SnapshotBuildStats | undefined;
  let inflight: Promise<Snapshot> | undefined;
  let again = false;

  async function rebuild(): Promise<Snapshot> {
    const loadStarted = performance.now();
    const { version, rows } = await deps.loadRows();
    if (version === current.version) return current;
    const load_ms = Math.round((performance.now() - loadStarted) * 1000) / 1000;
    const slicer = createTimeSlicer(deps.slicing);
    const next = await buildSnapshotSliced(rows, deps.fields, version, () => slicer.checkpoint());
    const sliced = slicer.finish();
    // The swap: one assignment, after the new snapshot is complete.
    current = next;
    stats = { version, stocks: next.size, fields: next.fields.length, load_ms, build_ms: sliced.total_ms, ...sliced };
    deps.onSwap?.(next, stats);
    return next;
  }

  return {
    current: () => current,
    lastBuild: () => stats,
    refresh(version) {
      if (version !== undefined && version === current.version) return Promise.resolve(current);
      if (inflight) {
        // A newer version may have landed while this rebuild read storage: run once more after it.
        again = true;
        return inflight;
      }
      again = false;
      inflight = (async () => {
        try {
          let snap = await rebuild();
          while (again) {
            again = false;
            snap = await rebuild();
          }
          return snap;
        } finally {
          inflight = undefined;
        }
      })();
      return inflight;
    },
  };
}
