/**
 * Wire shapes of live screens on the WebSocket: the `subscribe` / `unsubscribe`
 * client messages with `subscription_type: "screen"`. Kept apart from protocol.ts's
 * stock/market/sector subscriptions, whose targets and session maps they do not share.
 *
 *   {"type":"subscribe","subscription_type":"screen","targets":["preset:<id>","template:value"]}
 *   {"type":"subscribe","subscription_type":"screen","targets":["template:value"],"overrides":{"market":"KOSDAQ","per_page":20}}
 *   {"type":"subscribe","subscription_type":"screen","query":{"filters":{...},"sort":[...],"per_page":20}}
 *   {"type":"unsubscribe","subscription_type":"screen","targets":["<screen_id>" | "template:value" | ...]}
 *
 * A subscribe may add `"dwell_s": <0–3600>`: an entry or exit reaches this subscriber only once
 * it has held that long (live-screens.ts).
 */
import { ScreenSubscribeMessage, ScreenUnsubscribeMessage, type ScreenClientMessage } from '../contract/ws.js';

/** The live-screen client messages are wire shapes (daemon/contract/ws.ts). */
export { MAX_SCREEN_TARGETS, type ScreenClientMessage, type ScreenSubscribeMessage, type ScreenUnsubscribeMessage } from '../contract/ws.js';

/** True when a raw client object is a screen (un)subscription. */
export function isScreenMessage(raw: object): boolean {
  const m = raw as { type?: unknown; subscription_type?: unknown };
  return (m.type === 'subscribe' || m.type === 'unsubscribe') && m.subscription_type === 'screen';
}

/** Validate a screen (un)subscription; issues like protocol.ts's other messages. */
export function parseScreenMessage(raw: object): { ok: true; message: ScreenClientMessage } | { ok: false; issues: { field: string; message: string }[] } {
  const schema = (raw as { type?: unknown }).type === 'subscribe' ? ScreenSubscribeMessage : ScreenUnsubscribeMessage;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  return { ok: false, issues: parsed.error.issues.slice(0, 10).map((i) => ({ field: i.path.join('.'), message: i.message })) };
}

/** A live screen as a saved session keeps it (restore re-opens it and sends the membership diff). */
export interface SavedLiveScreen {
  screen_id: string;
  /** `preset:<id>`, `template:<id>` or `query`. */
  source: string;
  /** The inline query as the client sent it (source `query`). */
  query?: Record<string, unknown>;
  /** A template's overrides as the client sent them (source `template:<id>`; absent: none). */
  overrides?: Record<string, unknown>;
  /** Member codes when the session was saved (as the subscriber was told them, dwell included). */
  members: string[];
  /** The subscription's dwell in seconds (absent: none). */
  dwell_s?: number;
}
