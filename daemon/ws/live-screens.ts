/**
 * The WebSocket edge of live screens: `subscribe`/`unsubscribe` with
 * `subscription_type: "screen"` (screen-protocol.ts) turned into calls of the live service
 * (daemon/live/), and its membership changes into `subscribed` and `screen_update` messages
 * sent through the connection like every other message (sequence, batching, deflate).
 * Failures answer SUBSCRIPTION_FAILED with the reason and field details; the connection
 * stays usable. A connection's screens end with it (`closed`).
 *
 * Dwell (`dwell_s` on the subscribe, per subscriber): the engine shares one screen between
 * identical queries, so the dwell is applied here, between the shared screen and this
 * subscriber. Each subscription with a dwell keeps the members as it has told them and the
 * changes not told yet; a change is told once it has held for the dwell, and one that goes back
 * before is dropped. One sweep timer serves every such subscription and runs only while some
 * change is waiting; subscriptions without a dwell never reach it.
 */
import { isAppError } from '../errors.js';
import { MAX_LIVE_SCREEN_DWELL_S } from '../contract/ws.js';
import type { Clock } from '../infra/clock.js';
import type { Tier } from '../kernel/roles.js';
import type { LiveMemberRow, LiveScreenChange } from '../live/engine.js';
import type { LiveService, LiveSource, LiveSubscription } from '../live/live-service.js';
import { serverMessages, type OutMessage, type WsErrorCode } from './protocol.js';
import type { SavedLiveScreen, ScreenSubscribeMessage, ScreenUnsubscribeMessage } from './screen-protocol.js';

/** What the hook needs of a connection (structurally a Connection; no import, no cycle). */
export interface LiveScreenPeer {
  readonly id: string;
  readonly user: { id: string; tier: Tier } | null;
  isOpen(): boolean;
  send(message: OutMessage): void;
  error(code: WsErrorCode, message: string, details?: Record<string, unknown>): void;
}

/** The connection-side hook (ConnectionDeps.liveScreens). */
export interface LiveScreenHook {
  subscribe(peer: LiveScreenPeer, message: ScreenSubscribeMessage): Promise<void>;
  unsubscribe(peer: LiveScreenPeer, message: ScreenUnsubscribeMessage): void;
  /** The connection closed: end its screens. */
  closed(peer: Pick<LiveScreenPeer, 'id'>): void;
  /** Live screens held by the connection (stats, tests). */
  count(peer: Pick<LiveScreenPeer, 'id'>): number;
  /** The connection's screens as its session keeps them (undefined when none). */
  saved(peer: Pick<LiveScreenPeer, 'id'>): SavedLiveScreen[] | undefined;
  /**
   * Re-open a restored session's screens under their ids: `subscribed` (restored: true) with
   * the current members, then one `screen_update` with what entered and left since the save.
   */
  restore(peer: LiveScreenPeer, screens: readonly SavedLiveScreen[]): Promise<void>;
  /** Tell the waiting changes whose dwell is over (a timer does it every 250 ms; tests on a manual clock call it). */
  sweep(): void;
}

interface Held {
  sub: LiveSubscription;
  source: LiveSource;
  /** Present when the subscription has a dwell. */
  dwell?: Dwell;
}

/** How often waiting changes are checked against their dwell. */
const SWEEP_MS = 250;

/** The members a dwelling subscriber has been told, and the changes it has not been told yet. */
interface Dwell {
  ms: number;
  told: Set<string>;
  /** Code → when its membership started to differ from `told`. */
  waiting: Map<string, number>;
  /** Tell the changes that have held (undefined until `subscribed` is out). */
  flush?: (now: number) => void;
}

/** A subscribe's `dwell_s`: whole seconds within bounds, or the field's complaint. */
function dwellOf(raw: unknown): { ok: true; seconds: number } | { ok: false; message: string } {
  if (raw === undefined || raw === null) return { ok: true, seconds: 0 };
  if (typeof raw !== 'number' || !Number.isInteger(raw)) return { ok: false, message: 'must be whole seconds' };
  if (raw < 0 || raw > MAX_LIVE_SCREEN_DWELL_S) return { ok: false, message: `must be from 0 to ${MAX_LIVE_SCREEN_DWELL_S} (an hour)` };
  return { ok: true, seconds: raw };
}

function sourceOf(target: string): LiveSource | null {
  const m = /^(preset|template):([A-Za-z0-9_-]{1,64})$/.exec(target.trim());
  return m ? { kind: m[1] as 'preset' | 'template', id: m[2]! } : null;
}

/**
 * Create the hook over the live service; `clock` stamps messages and times dwells. `isHolding` says
 * when the engine holds membership changes (prices stale): waiting changes are not told then
 * either, and are told after the release only if they still stand.
 */
export function createLiveScreenHook(service: LiveService, clock: Clock, isHolding: () => boolean = () => false): LiveScreenHook {
  const now = () => clock.now();
  const byConnection = new Map<string, Map<string, Held>>();
  // Dwelling subscriptions with a change waiting; the timer runs only while there is one.
  const waiting = new Set<Dwell>();
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    if (isHolding()) return;
    const at = now();
    for (const d of [...waiting]) {
      d.flush?.(at);
      if (d.waiting.size === 0) waiting.delete(d);
    }
    if (waiting.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const wait = (d: Dwell) => {
    waiting.add(d);
    if (timer === undefined) {
      timer = setInterval(sweep, SWEEP_MS);
      timer.unref();
    }
  };
  const end = (held: Held) => {
    held.sub.close();
    if (held.dwell) waiting.delete(held.dwell);
    if (waiting.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  /** A change from the shared screen, as seen by a dwelling subscriber: start or drop waiting changes. */
  function observe(d: Dwell, change: LiveScreenChange, at: number): void {
    const mark = (code: string, member: boolean) => {
      if (d.told.has(code) === member) d.waiting.delete(code);
      else if (!d.waiting.has(code)) d.waiting.set(code, at);
    };
    for (const code of change.exited) mark(code, false);
    for (const row of change.entered) mark(row.code, true);
    if (d.waiting.size > 0) wait(d);
  }

  /** The changes of `d` that have held for its dwell, as one screen_update's body (null when none). */
  function due(d: Dwell, sub: LiveSubscription, at: number): LiveScreenChange | null {
    const codes = [...d.waiting].filter(([, since]) => at - since >= d.ms).map(([code]) => code);
    if (codes.length === 0) return null;
    for (const code of codes) d.waiting.delete(code);
    const entering = new Set(codes.filter((c) => !d.told.has(c)));
    // A waiting entry is a member now (had it left, its wait would have been dropped): its row is current.
    const entered: LiveMemberRow[] = entering.size > 0 ? sub.members().filter((m) => entering.has(m.code)) : [];
    const exited = codes.filter((c) => d.told.has(c));
    for (const code of exited) d.told.delete(code);
    for (const row of entered) d.told.add(row.code);
    return { entered, exited, count: d.told.size, total: sub.total() };
  }
  const screensOf = (peer: Pick<LiveScreenPeer, 'id'>) => {
    let map = byConnection.get(peer.id);
    if (!map) byConnection.set(peer.id, (map = new Map()));
    return map;
  };

  async function openOne(peer: LiveScreenPeer, source: LiveSource, target: string, dwellS: number, restoring?: SavedLiveScreen): Promise<void> {
    const screens = screensOf(peer);
    // Changes wait until `subscribed` is out, so the members are the base every diff applies to.
    let ready = false;
    const early: LiveScreenChange[] = [];
    let sub: LiveSubscription | undefined;
    const dwell: Dwell | undefined = dwellS > 0 ? { ms: dwellS * 1000, told: new Set(), waiting: new Map() } : undefined;
    const listener = (change: LiveScreenChange) => {
      if (!ready) return void early.push(change);
      if (!sub || !peer.isOpen()) return;
      if (dwell) return observe(dwell, change, now());
      peer.send(serverMessages.screenUpdate(sub.id, change, now()));
    };
    try {
      const owner = { userId: peer.user?.id ?? null, tier: peer.user?.tier ?? 'free', connectionId: peer.id, held: screens.size };
      sub = await service.open(owner, source, listener, restoring?.screen_id);
    } catch (err) {
      if (!isAppError(err)) throw err;
      return peer.error('SUBSCRIPTION_FAILED', err.message, { subscription_type: 'screen', target, ...err.details });
    }
    if (!peer.isOpen()) return sub.close();
    screens.set(sub.id, { sub, source, ...(dwell ? { dwell } : {}) });
    const q = sub.query;
    const members = sub.members();
    const info = { screen_id: sub.id, source: sub.source, total: sub.total(), sort: q.sort, page: q.page, per_page: q.per_page };
    peer.send(serverMessages.screenSubscribed(restoring ? { ...info, restored: true } : info, members, now()));
    if (restoring) {
      const before = new Set(restoring.members);
      const after = new Set(members.map((m) => m.code));
      const change = { entered: members.filter((m) => !before.has(m.code)), exited: restoring.members.filter((c) => !after.has(c)), count: members.length, total: sub.total() };
      if (change.entered.length > 0 || change.exited.length > 0) peer.send(serverMessages.screenUpdate(sub.id, change, now()));
    }
    ready = true;
    // Anything that changed between compiling and sending is already in the members sent.
    early.length = 0;
    if (dwell) {
      for (const m of members) dwell.told.add(m.code);
      const id = sub.id;
      const held = sub;
      dwell.flush = (at) => {
        const change = peer.isOpen() ? due(dwell, held, at) : null;
        if (change) peer.send(serverMessages.screenUpdate(id, change, at));
      };
    }
  }

  function dwellOrRefuse(peer: LiveScreenPeer, raw: unknown, target: string): number | null {
    const d = dwellOf(raw);
    if (d.ok) return d.seconds;
    peer.error('SUBSCRIPTION_FAILED', `dwell_s ${d.message}`, { reason: 'invalid_dwell', subscription_type: 'screen', target, dwell_s: d.message });
    return null;
  }

  return {
    async subscribe(peer, m) {
      const dwellS = dwellOrRefuse(peer, m.dwell_s, m.query !== undefined ? 'query' : (m.targets ?? []).join(','));
      if (dwellS === null) return;
      if (m.query !== undefined) return openOne(peer, { kind: 'query', body: m.query }, 'query', dwellS);
      const targets = [...new Set((m.targets ?? []).map((t) => t.trim()))];
      const unknown = targets.filter((t) => sourceOf(t) === null);
      if (unknown.length > 0) {
        peer.error('SUBSCRIPTION_FAILED', `Not a screen target: ${unknown.slice(0, 5).join(', ')} (use preset:<id> or template:<id>)`, {
          reason: 'unknown_targets', subscription_type: 'screen', targets: unknown,
        });
      }
      // One at a time, so each sees the previous one in the per-connection count.
      for (const t of targets) {
        const source = sourceOf(t);
        if (source) await openOne(peer, source, t, dwellS);
      }
    },
    unsubscribe(peer, m) {
      const screens = screensOf(peer);
      const removed: string[] = [];
      for (const target of new Set(m.targets.map((t) => t.trim()))) {
        for (const [id, held] of screens) {
          if (id !== target && held.sub.source !== target) continue;
          end(held);
          screens.delete(id);
          removed.push(id);
        }
      }
      peer.send(serverMessages.screensUnsubscribed(removed, now()));
    },
    closed(peer) {
      const screens = byConnection.get(peer.id);
      byConnection.delete(peer.id);
      for (const held of screens?.values() ?? []) end(held);
    },
    count: (peer) => byConnection.get(peer.id)?.size ?? 0,
    sweep,
    saved(peer) {
      const screens = byConnection.get(peer.id);
      if (!screens || screens.size === 0) return undefined;
      return [...screens.values()].map(({ sub, source, dwell }) => ({
        screen_id: sub.id, source: sub.source, ...(source.kind === 'query' ? { query: source.body as Record<string, unknown> } : {}),
        // What the subscriber was told: the restore's diff is against what it holds.
        members: dwell ? [...dwell.told] : sub.members().map((m) => m.code),
        ...(dwell ? { dwell_s: dwell.ms / 1000 } : {}),
      }));
    },
    async restore(peer, saved) {
      for (const s of saved) {
        if (screensOf(peer).has(s.screen_id)) continue;
        const source = s.source === 'query' ? (s.query ? { kind: 'query' as const, body: s.query } : null) : sourceOf(s.source);
        const dwellS = dwellOf(s.dwell_s);
        if (source) await openOne(peer, source, s.source, dwellS.ok ? dwellS.seconds : 0, s);
      }
    },
  };
}
