/**
 * What `stockscreen screen --live` shows, folded from the server's messages: the members of
 * the live screen in its sort order (rows as the server sent them, kept in place and moved
 * only as entries and exits require), which rows entered recently (flashed), a log of
 * enter/exit events with their times, and the counts. Pure: the Ink view renders it.
 */
import type { ReceivedMessage } from '../../../daemon/contract/ws.js';
import type { ConnectionStatus, WsClientEvent } from '../transport/ws-client.js';

/** A member row (the POST /screen item plus `price`). */
export type LiveRow = { code: string; name: string; price?: number | null; [field: string]: unknown };

/** One enter or exit. */
export interface LiveEvent {
  kind: 'enter' | 'exit';
  code: string;
  name: string;
  /** The server's timestamp (ISO 8601). */
  at: string;
}

/** The state of the view. */
export interface LiveScreenState {
  screenId: string | null;
  source: string | null;
  sort: { field: string; direction: 'asc' | 'desc' }[];
  members: LiveRow[];
  /** Codes that entered, with when (ms, local clock) the flash ends. */
  flashes: Record<string, number>;
  /** Newest first. */
  log: LiveEvent[];
  count: number;
  total: number;
  entered: number;
  exited: number;
  connection: ConnectionStatus;
  errors: string[];
}

/** Bounds of the view. */
export const LIVE_LIMITS = { log: 50, flashMs: 3000, errors: 5 } as const;

/** The empty state. */
export function initialLiveScreenState(): LiveScreenState {
  return { screenId: null, source: null, sort: [], members: [], flashes: {}, log: [], count: 0, total: 0, entered: 0, exited: 0, connection: { state: 'connecting', attempt: 1 }, errors: [] };
}

function compareBy(sort: LiveScreenState['sort']): (a: LiveRow, b: LiveRow) => number {
  return (a, b) => {
    for (const { field, direction } of sort) {
      const x = a[field];
      const y = b[field];
      if (x === y) continue;
      // Nulls last in both directions, as the server sorts.
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      const c = (x as number | string) < (y as number | string) ? -1 : 1;
      return direction === 'desc' ? -c : c;
    }
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  };
}

function onSubscribed(state: LiveScreenState, m: ReceivedMessage): LiveScreenState {
  const members = (m.members as LiveRow[] | undefined) ?? [];
  return {
    ...state, screenId: String(m.screen_id), source: String(m.source), sort: (m.sort as LiveScreenState['sort'] | undefined) ?? [],
    members, count: members.length, total: Number(m.total ?? members.length),
  };
}

function onUpdate(state: LiveScreenState, m: ReceivedMessage, now: number): LiveScreenState {
  if (m.screen_id !== state.screenId) return state;
  const entered = (m.entered as LiveRow[] | undefined) ?? [];
  const exited = new Set((m.exited as string[] | undefined) ?? []);
  const at = String(m.timestamp ?? new Date(now).toISOString());
  const names = new Map(state.members.map((r) => [r.code, r.name]));
  const log: LiveEvent[] = [
    ...entered.map((r) => ({ kind: 'enter' as const, code: r.code, name: r.name, at })),
    ...[...exited].map((code) => ({ kind: 'exit' as const, code, name: names.get(code) ?? '', at })),
  ];
  const members = [...state.members.filter((r) => !exited.has(r.code)), ...entered].sort(compareBy(state.sort));
  const flashes = Object.fromEntries(Object.entries(state.flashes).filter(([code, until]) => until > now && !exited.has(code)));
  for (const r of entered) flashes[r.code] = now + LIVE_LIMITS.flashMs;
  return {
    ...state, members, flashes, log: [...log, ...state.log].slice(0, LIVE_LIMITS.log),
    count: Number(m.count ?? members.length), total: Number(m.total ?? state.total),
    entered: state.entered + entered.length, exited: state.exited + exited.size,
  };
}

/** Fold one server message into the state (`now`: ms, for the flashes). */
export function reduceLiveMessage(state: LiveScreenState, m: ReceivedMessage, now: number): LiveScreenState {
  if (m.type === 'subscribed' && m.subscription_type === 'screen') return onSubscribed(state, m);
  if (m.type === 'screen_update') return onUpdate(state, m, now);
  if (m.type === 'error') return { ...state, errors: [`${String(m.code)}: ${String(m.message)}`, ...state.errors].slice(0, LIVE_LIMITS.errors) };
  return state;
}

/** Fold one client event into the state. */
export function reduceLiveScreen(state: LiveScreenState, event: WsClientEvent, now: number = Date.now()): LiveScreenState {
  if (event.type === 'message') return reduceLiveMessage(state, event.message, now);
  if (event.type === 'status') return { ...state, connection: event.status };
  return state;
}

/** The live-screen messages of a stream (what `--json` prints). */
export function isLiveScreenMessage(m: ReceivedMessage): boolean {
  return m.type === 'screen_update' || (m.type === 'subscribed' && m.subscription_type === 'screen') || (m.type === 'unsubscribed' && m.subscription_type === 'screen') || m.type === 'error';
}
