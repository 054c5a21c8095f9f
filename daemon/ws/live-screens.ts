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
 * subscriber (screen-dwell.ts); subscriptions without a dwell never reach it.
 */
import { isAppError } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import type { Tier } from '../kernel/roles.js';
import type { LiveMemberRow, LiveScreenChange } from '../live/engine.js';
import type { LiveService, LiveSource, LiveSubscription } from '../live/live-service.js';
import { serverMessages, type OutMessage, type WsErrorCode } from './protocol.js';
import type { SavedLiveScreen, ScreenSubscribeMessage, ScreenUnsubscribeMessage } from './screen-protocol.js';
import { dueChange, dwellOf, DwellSweeper, type Dwell } from './screen-dwell.js';

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

/** The screen `target` names, a template with `overrides` when given; null when it names none. */
function sourceOf(target: string, overrides?: Record<string, unknown>): LiveSource | null {
  const m = /^(preset|template):([A-Za-z0-9_-]{1,64})$/.exec(target.trim());
  if (!m) return null;
  if (m[1] === 'preset') return { kind: 'preset', id: m[2]! };
  return overrides === undefined ? { kind: 'template', id: m[2]! } : { kind: 'template', id: m[2]!, overrides };
}

const PRESET_OVERRIDES = 'only template targets take overrides: subscribe the preset with them applied as a query';

/** What opening one screen needs of its hook. */
interface Opening {
  service: LiveService;
  clock: Clock;
  dwells: DwellSweeper;
}

/**
 * Open one screen for `peer` and keep it in `screens`: `subscribed` with its members (and, for a
 * restored one, the diff since the save), then its changes as `screen_update`s, through its dwell
 * when it has one. Failures answer SUBSCRIPTION_FAILED.
 */
async function openScreen(o: Opening, peer: LiveScreenPeer, screens: Map<string, Held>, source: LiveSource, target: string, dwellS: number, restoring?: SavedLiveScreen): Promise<void> {
  const { clock, dwells } = o;
  // Changes wait until `subscribed` is out, so the members are the base every diff applies to.
  let ready = false;
  const early: LiveScreenChange[] = [];
  let sub: LiveSubscription | undefined;
  const dwell: Dwell | undefined = dwellS > 0 ? { ms: dwellS * 1000, told: new Set(), waiting: new Map() } : undefined;
  const listener = (change: LiveScreenChange) => {
    if (!ready) return void early.push(change);
    if (!sub || !peer.isOpen()) return;
    if (dwell) return dwells.observe(dwell, change, clock.now());
    peer.send(serverMessages.screenUpdate(sub.id, change, clock.now()));
  };
  try {
    const owner = { userId: peer.user?.id ?? null, tier: peer.user?.tier ?? 'free', connectionId: peer.id, held: screens.size };
    sub = await o.service.open(owner, source, listener, restoring?.screen_id);
  } catch (err) {
    if (!isAppError(err)) throw err;
    return peer.error('SUBSCRIPTION_FAILED', err.message, { subscription_type: 'screen', target, ...err.details });
  }
  if (!peer.isOpen()) return sub.close();
  screens.set(sub.id, { sub, source, ...(dwell ? { dwell } : {}) });
  const members = sendSubscribed(peer, sub, clock, restoring);
  ready = true;
  // Anything that changed between compiling and sending is already in the members sent.
  early.length = 0;
  if (dwell) {
    for (const m of members) dwell.told.add(m.code);
    const id = sub.id;
    const held = sub;
    dwell.flush = (at) => {
      const change = peer.isOpen() ? dueChange(dwell, held, at) : null;
      if (change) peer.send(serverMessages.screenUpdate(id, change, at));
    };
  }
}

/** Send `subscribed` with the screen's members and, when restoring, what entered and left since the save; the members sent. */
function sendSubscribed(peer: LiveScreenPeer, sub: LiveSubscription, clock: Clock, restoring: SavedLiveScreen | undefined): LiveMemberRow[] {
  const q = sub.query;
  const members = sub.members();
  const info = { screen_id: sub.id, source: sub.source, ...(sub.overrides ? { overrides: sub.overrides } : {}), total: sub.total(), sort: q.sort, page: q.page, per_page: q.per_page };
  peer.send(serverMessages.screenSubscribed(restoring ? { ...info, restored: true } : info, members, clock.now()));
  if (restoring) {
    const before = new Set(restoring.members);
    const after = new Set(members.map((m) => m.code));
    const change = { entered: members.filter((m) => !before.has(m.code)), exited: restoring.members.filter((c) => !after.has(c)), count: members.length, total: sub.total() };
    if (change.entered.length > 0 || change.exited.length > 0) peer.send(serverMessages.screenUpdate(sub.id, change, clock.now()));
  }
  return members;
}

function dwellOrRefuse(peer: LiveScreenPeer, raw: unknown, target: string): number | null {
  const d = dwellOf(raw);
  if (d.ok) return d.seconds;
  peer.error('SUBSCRIPTION_FAILED', `dwell_s ${d.message}`, { reason: 'invalid_dwell', subscription_type: 'screen', target, dwell_s: d.message });
  return null;
}

/** The connection's screens as its session keeps them: what the subscriber was told (the restore's diff is against what it holds). */
function savedOf(screens: Map<string, Held>): SavedLiveScreen[] {
  return [...screens.values()].map(({ sub, source, dwell }) => ({
    screen_id: sub.id, source: sub.source, ...(source.kind === 'query' ? { query: source.body as Record<string, unknown> } : {}),
    // As the client sent them: the restore validates them again, as the subscribe did.
    ...(source.kind === 'template' && source.overrides !== undefined ? { overrides: source.overrides as Record<string, unknown> } : {}),
    members: dwell ? [...dwell.told] : sub.members().map((m) => m.code),
    ...(dwell ? { dwell_s: dwell.ms / 1000 } : {}),
  }));
}

/**
 * Create the hook over the live service; `clock` stamps messages and times dwells. `isHolding` says
 * when the engine holds membership changes (prices stale): waiting changes are not told then
 * either, and are told after the release only if they still stand.
 */
export function createLiveScreenHook(service: LiveService, clock: Clock, isHolding: () => boolean = () => false): LiveScreenHook {
  const byConnection = new Map<string, Map<string, Held>>();
  const dwells = new DwellSweeper(clock, isHolding);
  const opening: Opening = { service, clock, dwells };
  const end = (held: Held) => {
    held.sub.close();
    dwells.forget(held.dwell);
  };
  const screensOf = (peer: Pick<LiveScreenPeer, 'id'>) => {
    let map = byConnection.get(peer.id);
    if (!map) byConnection.set(peer.id, (map = new Map()));
    return map;
  };

  return {
    async subscribe(peer, m) {
      const dwellS = dwellOrRefuse(peer, m.dwell_s, m.query !== undefined ? 'query' : (m.targets ?? []).join(','));
      if (dwellS === null) return;
      if (m.query !== undefined) return openScreen(opening, peer, screensOf(peer), { kind: 'query', body: m.query }, 'query', dwellS);
      const targets = [...new Set((m.targets ?? []).map((t) => t.trim()))];
      const unknown = targets.filter((t) => sourceOf(t) === null);
      if (unknown.length > 0) {
        peer.error('SUBSCRIPTION_FAILED', `Not a screen target: ${unknown.slice(0, 5).join(', ')} (use preset:<id> or template:<id>)`, {
          reason: 'unknown_targets', subscription_type: 'screen', targets: unknown,
        });
      }
      // One at a time, so each sees the previous one in the per-connection count.
      for (const t of targets) {
        const source = sourceOf(t, m.overrides);
        if (source?.kind === 'preset' && m.overrides !== undefined) {
          peer.error('SUBSCRIPTION_FAILED', `Invalid overrides of ${t}: ${PRESET_OVERRIDES}`, { reason: 'invalid_query', subscription_type: 'screen', target: t, overrides: PRESET_OVERRIDES });
        } else if (source) await openScreen(opening, peer, screensOf(peer), source, t, dwellS);
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
      peer.send(serverMessages.screensUnsubscribed(removed, clock.now()));
    },
    closed(peer) {
      const screens = byConnection.get(peer.id);
      byConnection.delete(peer.id);
      for (const held of screens?.values() ?? []) end(held);
    },
    count: (peer) => byConnection.get(peer.id)?.size ?? 0,
    sweep: dwells.sweep,
    saved(peer) {
      const screens = byConnection.get(peer.id);
      return !screens || screens.size === 0 ? undefined : savedOf(screens);
    },
    async restore(peer, saved) {
      for (const s of saved) {
        if (screensOf(peer).has(s.screen_id)) continue;
        const source = s.source === 'query' ? (s.query ? { kind: 'query' as const, body: s.query } : null) : sourceOf(s.source, s.overrides);
        const dwellS = dwellOf(s.dwell_s);
        if (source) await openScreen(opening, peer, screensOf(peer), source, s.source, dwellS.ok ? dwellS.seconds : 0, s);
      }
    },
  };
}
