/**
 * The WebSocket edge of live screens: `subscribe`/`unsubscribe` with
 * `subscription_type: "screen"` (screen-protocol.ts) turned into calls of the live service
 * (daemon/live/), and its membership changes into `subscribed` and `screen_update` messages
 * sent through the connection like every other message (sequence, batching, deflate).
 * Failures answer SUBSCRIPTION_FAILED with the reason and field details; the connection
 * stays usable. A connection's screens end with it (`closed`).
 */
import { isAppError } from '../errors.js';
import type { Tier } from '../kernel/roles.js';
import type { LiveScreenChange } from '../live/engine.js';
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
}

interface Held {
  sub: LiveSubscription;
  source: LiveSource;
}

function sourceOf(target: string): LiveSource | null {
  const m = /^(preset|template):([A-Za-z0-9_-]{1,64})$/.exec(target.trim());
  return m ? { kind: m[1] as 'preset' | 'template', id: m[2]! } : null;
}

/** Create the hook over the live service; `now` stamps messages. */
export function createLiveScreenHook(service: LiveService, now: () => number): LiveScreenHook {
  const byConnection = new Map<string, Map<string, Held>>();
  const screensOf = (peer: Pick<LiveScreenPeer, 'id'>) => {
    let map = byConnection.get(peer.id);
    if (!map) byConnection.set(peer.id, (map = new Map()));
    return map;
  };

  async function openOne(peer: LiveScreenPeer, source: LiveSource, target: string, restoring?: SavedLiveScreen): Promise<void> {
    const screens = screensOf(peer);
    // Changes wait until `subscribed` is out, so the members are the base every diff applies to.
    let ready = false;
    const early: LiveScreenChange[] = [];
    let sub: LiveSubscription | undefined;
    const listener = (change: LiveScreenChange) => {
      if (!ready) return void early.push(change);
      if (sub && peer.isOpen()) peer.send(serverMessages.screenUpdate(sub.id, change, now()));
    };
    try {
      const owner = { userId: peer.user?.id ?? null, tier: peer.user?.tier ?? 'free', connectionId: peer.id, held: screens.size };
      sub = await service.open(owner, source, listener, restoring?.screen_id);
    } catch (err) {
      if (!isAppError(err)) throw err;
      return peer.error('SUBSCRIPTION_FAILED', err.message, { subscription_type: 'screen', target, ...err.details });
    }
    if (!peer.isOpen()) return sub.close();
    screens.set(sub.id, { sub, source });
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
  }

  return {
    async subscribe(peer, m) {
      if (m.query !== undefined) return openOne(peer, { kind: 'query', body: m.query }, 'query');
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
        if (source) await openOne(peer, source, t);
      }
    },
    unsubscribe(peer, m) {
      const screens = screensOf(peer);
      const removed: string[] = [];
      for (const target of new Set(m.targets.map((t) => t.trim()))) {
        for (const [id, { sub }] of screens) {
          if (id !== target && sub.source !== target) continue;
          sub.close();
          screens.delete(id);
          removed.push(id);
        }
      }
      peer.send(serverMessages.screensUnsubscribed(removed, now()));
    },
    closed(peer) {
      const screens = byConnection.get(peer.id);
      byConnection.delete(peer.id);
      for (const { sub } of screens?.values() ?? []) sub.close();
    },
    count: (peer) => byConnection.get(peer.id)?.size ?? 0,
    saved(peer) {
      const screens = byConnection.get(peer.id);
      if (!screens || screens.size === 0) return undefined;
      return [...screens.values()].map(({ sub, source }) => ({
        screen_id: sub.id, source: sub.source, ...(source.kind === 'query' ? { query: source.body as Record<string, unknown> } : {}),
        members: sub.members().map((m) => m.code),
      }));
    },
    async restore(peer, saved) {
      for (const s of saved) {
        if (screensOf(peer).has(s.screen_id)) continue;
        const source = s.source === 'query' ? (s.query ? { kind: 'query' as const, body: s.query } : null) : sourceOf(s.source);
        if (source) await openOne(peer, source, s.source, s);
      }
    },
  };
}
