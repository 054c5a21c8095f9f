/**
 * Taking over a session record for a restoring connection (see session-store.ts for the
 * record states). A `saved` record is claimed at once. A `live` record is a checkpoint of
 * a connection that may still be open:
 * - held by a connection of this gateway: refused (`in_use`) while it is open; once it
 *   closes its saved record is claimed instead;
 * - held by another gateway instance that is alive: that instance saves the record when
 *   the connection closes, so the claim waits (re-reading the record) up to `ownerWaitMs`
 *   for that, then refuses (`in_use`);
 * - held by an instance that is gone (its liveness key expired: it was killed): the
 *   checkpoint is claimed, and the session restores from it.
 */
import type { Clock } from '../infra/clock.js';
import type { RestoreFailure, SessionOwner, SessionState, SessionStore, StoredSession } from './session-store.js';

/** What a claim reads of the claiming connection (and of a local holder). */
export interface Claimant {
  readonly id: string;
  readonly user: { id: string } | null;
  isOpen(): boolean;
  owner(): SessionOwner;
  readonly deps: ClaimDeps;
}

/** The collaborators a claim uses. */
export interface ClaimDeps {
  sessions: Pick<SessionStore, 'read' | 'remove' | 'isAlive' | 'claim'>;
  clock: Clock;
  settings: { ownerWaitMs: number };
  gatewayId: string;
  /** A connection of this gateway by id (until its session is saved). */
  localConnection(id: string): { isOpen(): boolean; readonly finished: Promise<void> } | undefined;
}

/** Outcome of a claim. */
export type ClaimResult = { ok: true; stored: StoredSession } | { ok: false; reason: RestoreFailure };

const POLL_MS = 50;
const MAX_ATTEMPTS = 1000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** What the claiming connection writes first: the stored session, now owned by it (the replay has not happened yet). */
function claimedState(stored: StoredSession): SessionState {
  const { saved_at: _s, expires_at: _e, ...state } = stored.session;
  return state;
}

/** Whether the live record's holder can still save it: 'open' (refuse or wait), 'closing' (wait), 'gone' (claim). */
async function holderState(conn: Claimant, stored: StoredSession): Promise<'open' | 'closing' | 'gone'> {
  const { deps } = conn;
  if (stored.owner.gateway === deps.gatewayId) {
    const holder = deps.localConnection(stored.owner.connection);
    if (!holder) return 'gone';
    return holder.isOpen() ? 'open' : 'closing';
  }
  return (await deps.sessions.isAlive(stored.owner.gateway)) ? 'closing' : 'gone';
}

/**
 * Claim session `id` for `conn` (user `conn.user`). Never resolves `ok` for a session of
 * another user, an expired one, or one still in use.
 * @throws when Redis is unavailable
 */
export async function claimSession(conn: Claimant, id: string): Promise<ClaimResult> {
  const { deps } = conn;
  const deadline = Date.now() + deps.settings.ownerWaitMs;
  const userId = conn.user?.id ?? null;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const stored = await deps.sessions.read(id);
    if (!stored) return { ok: false, reason: 'unknown' };
    if (deps.clock.now() >= stored.session.expires_at) {
      await deps.sessions.remove(id);
      return { ok: false, reason: 'expired' };
    }
    if (stored.session.user_id !== userId) return { ok: false, reason: 'other_user' };
    if (stored.owner.connection === conn.id) return { ok: false, reason: 'in_use' };
    if (stored.state === 'live') {
      const holder = await holderState(conn, stored);
      if (holder === 'open' && stored.owner.gateway === deps.gatewayId) return { ok: false, reason: 'in_use' };
      if (holder !== 'gone') {
        if (Date.now() >= deadline || !conn.isOpen()) return { ok: false, reason: 'in_use' };
        const local = stored.owner.gateway === deps.gatewayId ? deps.localConnection(stored.owner.connection) : undefined;
        await (local ? Promise.race([local.finished, pause(deadline - Date.now())]) : pause(POLL_MS));
        continue;
      }
    }
    if (await deps.sessions.claim(id, stored, claimedState(stored), conn.owner())) return { ok: true, stored };
    // Changed between the read and the claim (saved by its holder, or claimed by another connection): look again.
  }
  return { ok: false, reason: 'in_use' };
}
