/**
 * "The snapshot changed", one event. The snapshot service tells `swapped` at the moment it swaps
 * a new indicator snapshot in (its onSwap); every part that follows the snapshot listens with `on`:
 * the live screens (re-evaluated at once, between two ticks), the feed's stock list, the price
 * alerts' average volumes, the as-of preload. Nobody polls for a version.
 *
 * How a swap comes about: a version computed by this process's job is applied before the job
 * completes, then announced on the snapshot channel; a version another process announced there
 * (a worker, another daemon) is applied when it arrives. Either way the swap is the same event.
 */
import type { Logger } from 'pino';
import type { Notifier } from '../infra/notifier.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import type { SnapshotService } from '../screening/engine/snapshot-service.js';

/** Redis pub/sub channel announcing a new indicator snapshot version. */
export const SNAPSHOT_CHANNEL = 'snapshot';

/** The snapshot swap event. */
export interface SnapshotSwaps {
  /** Listen to every swap; a listener's promise is waited for by SnapshotVersions.apply. Its failures are its own to log. */
  on(listener: (snapshot: Snapshot) => unknown): void;
  /** Tell every listener (the snapshot service's onSwap). */
  swapped(snapshot: Snapshot): void;
  /** Resolves once the listeners of the swaps told so far are done. */
  settled(): Promise<void>;
}

/** Create the event. */
export function createSnapshotSwaps(logger: Logger): SnapshotSwaps {
  const listeners: ((snapshot: Snapshot) => unknown)[] = [];
  let pending: Promise<unknown> = Promise.resolve();
  return {
    on: (listener) => void listeners.push(listener),
    swapped(snapshot) {
      const done = listeners.map(async (listener) => {
        try {
          await listener(snapshot);
        } catch (err) {
          logger.error({ err, version: snapshot.version }, 'a follower of the snapshot swap failed');
        }
      });
      pending = Promise.all([pending, ...done]);
    },
    settled: async () => void (await pending),
  };
}

/** What applies versions. */
export interface SnapshotVersionDeps {
  snapshot: Pick<SnapshotService, 'refresh'>;
  swaps: SnapshotSwaps;
  notifier: Notifier;
  logger: Logger;
}

/** Versions applied here and announced to every daemon. */
export interface SnapshotVersions {
  /** Swap `version` in (the snapshot service skips a version it already has) and wait for the swap's followers; never throws. */
  apply(version: string): Promise<void>;
  /** Apply `version` here, then announce it to every daemon. */
  computedHere(version: string): Promise<void>;
  /** Apply every version announced on the snapshot channel (heard once the notifier starts). */
  listen(): void;
}

/** Create the versions handler. */
export function createSnapshotVersions(deps: SnapshotVersionDeps): SnapshotVersions {
  const { snapshot, swaps, notifier, logger } = deps;
  async function apply(version: string): Promise<void> {
    try {
      await snapshot.refresh(version);
    } catch (err) {
      logger.error({ err }, 'snapshot refresh failed');
    }
    await swaps.settled();
  }
  return {
    apply,
    async computedHere(version) {
      await apply(version);
      await notifier.publish(SNAPSHOT_CHANNEL, version).catch(() => undefined);
    },
    listen() {
      notifier.subscribe(SNAPSHOT_CHANNEL, (version) => void apply(version));
    },
  };
}
