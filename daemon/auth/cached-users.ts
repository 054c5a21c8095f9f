/**
 * A short-lived in-process cache of account rows in front of the users repository:
 * every authenticated request needs the caller's current tier and role, and with
 * PostgreSQL that read is a network round trip. A change made through this repository
 * evicts the row here at once and, over Redis pub/sub, in every other daemon; the TTL
 * bounds how stale a row can get if such a message is lost (Redis down).
 */
import type { Clock } from '../infra/clock.js';
import type { Notifier } from '../infra/notifier.js';
import type { UserRow, UsersRepo } from '../store/users-repo.js';

/** Pub/sub channel carrying the id of a changed account. */
export const USER_CHANGED_CHANNEL = 'user-changed';

/** Options of createCachedUsersRepo. */
export interface CachedUsersOptions {
  notifier: Notifier;
  clock: Clock;
  /** How long a row may be served from memory (default 5,000 ms; 0 = no caching). */
  ttlMs?: number;
  /** Most rows kept (default 10,000; the oldest go first). */
  maxEntries?: number;
}

/** Wrap `repo` with the cache; subscribes to other daemons' invalidations. */
export function createCachedUsersRepo(repo: UsersRepo, options: CachedUsersOptions): UsersRepo {
  const ttlMs = options.ttlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const rows = new Map<string, { row: UserRow; until: number }>();
  options.notifier.subscribe(USER_CHANGED_CHANNEL, (id) => rows.delete(id));
  const changed = async (id: string) => {
    rows.delete(id);
    await options.notifier.publish(USER_CHANGED_CHANNEL, id).catch(() => undefined);
  };
  return {
    create: (input) => repo.create(input),
    findByEmail: (email) => repo.findByEmail(email),
    list: (o) => repo.list(o),
    listExempt: (nowIso) => repo.listExempt(nowIso),
    async findById(id) {
      const hit = rows.get(id);
      if (hit && hit.until > options.clock.now()) return { ...hit.row };
      const row = await repo.findById(id);
      if (row && ttlMs > 0) {
        rows.delete(id);
        if (rows.size >= maxEntries) rows.delete(rows.keys().next().value!);
        rows.set(id, { row: { ...row }, until: options.clock.now() + ttlMs });
      }
      return row;
    },
    async delete(id) {
      const deleted = await repo.delete(id);
      await changed(id);
      return deleted;
    },
    async update(id, patch) {
      const row = await repo.update(id, patch);
      await changed(id);
      return row;
    },
  };
}
