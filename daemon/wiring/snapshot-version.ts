/**
 * One reaction to "a new indicator snapshot version": swap the screening snapshot, reload the
 * feed's stocks and the alert evaluator's average volumes. A version computed in this process
 * is applied here before its job completes, then announced; every daemon applies announced ones.
 */
import type { Logger } from 'pino';
import type { Notifier } from '../infra/notifier.js';
import type { SnapshotService } from '../screening/snapshot-service.js';
import { SNAPSHOT_CHANNEL } from './core.js';

/** What reloads on a new version. */
export interface SnapshotVersionDeps {
  snapshot: Pick<SnapshotService, 'refresh'>;
  /** Further parts that reload (the feed's stock list, alert averages); failures are theirs to log. */
  followers: (() => Promise<unknown>)[];
  notifier: Notifier;
  logger: Logger;
}

/** The handler: `computedHere` for this process's jobs; `listen` for everyone's announcements. */
export interface SnapshotVersionHandler {
  /** Apply `version` (the snapshot service skips a version it already has). */
  changed(version: string): Promise<void>;
  /** Apply `version` here, then announce it to every daemon. */
  computedHere(version: string): Promise<void>;
  /** Apply every version announced on the snapshot channel. */
  listen(): void;
}

/** Create the handler. */
export function createSnapshotVersionHandler(deps: SnapshotVersionDeps): SnapshotVersionHandler {
  const { snapshot, followers, notifier, logger } = deps;
  async function changed(version: string): Promise<void> {
    try {
      await snapshot.refresh(version);
    } catch (err) {
      logger.error({ err }, 'snapshot refresh failed');
    }
    await Promise.all(followers.map((reload) => reload().catch(() => undefined)));
  }
  return {
    changed,
    async computedHere(version) {
      await changed(version);
      await notifier.publish(SNAPSHOT_CHANNEL, version).catch(() => undefined);
    },
    listen() {
      notifier.subscribe(SNAPSHOT_CHANNEL, (version) => void changed(version));
    },
  };
}
