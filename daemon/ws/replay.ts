/**
 * What a restored session missed: the missed messages, in order, from a
 * bounded per-stream history. Reads the bus history after the session's last stream
 * id up to the gateway's current dispatch position (later events arrive live), keeps
 * the events the restored subscriptions and user would have received (hub rules) — of
 * order books only the latest per code, the others being superseded.
 *
 * Two bounds (gateway options, `ws_replay_max_messages` in the config): at most
 * `maxMessages` messages are replayed (counted after order books are deduplicated) and
 * at most `maxScan` history entries are read. A gap that reaches past either bound, or
 * past the history itself (trimmed with MAXLEN ~ ws_history), is "truncated": nothing is
 * replayed (the caller sends a snapshot) and `missed` is extrapolated from the part that
 * was read over the whole gap in time (stream ids are milliseconds), with `estimated`
 * set. Reading stops at the bound, so a truncated plan costs no more than a full one.
 */
import { compareStreamIds, nextStreamId, previousStreamId, type MarketBus } from '../market/bus.js';
import type { MarketEvent } from '../kernel/events.js';
import { isRelevant, messageForEvent } from './hub.js';
import type { OutMessage } from './protocol.js';
import type { SubscriptionSet } from './subscriptions.js';

/** The history reads replay needs. */
export type ReplaySource = Pick<MarketBus, 'range' | 'firstId'> & { removedCount?(): Promise<number | null> };

/** Bounds of one replay. */
export interface ReplayLimits {
  /** Messages replayed at most (order books counted once per code); more → truncated (a snapshot is sent instead). */
  maxMessages: number;
  /** History entries read at most; more → truncated. */
  maxScan: number;
  /** Entries per history read (default 1000). */
  pageSize?: number;
}

/** Whose replay, and which gap. */
export interface ReplayArgs {
  /** The session's position (null: it never had one, nothing to replay). */
  after: string | null;
  /** The gateway's dispatch position now. */
  upto: string | null;
  subs: SubscriptionSet;
  userId: string | null;
  /** Include alert events (false when alerts are replayed from their durable records). Default true. */
  alerts?: boolean;
  /** Time of the position when `after` is '0-0' (the stream was empty): used for estimates. */
  afterMs?: number;
}

/** The replay of one restoration. */
export interface ReplayPlan {
  /** Messages to send in order (empty when truncated); only the latest order book per code is kept. */
  messages: OutMessage[];
  /** Relevant messages published after the session's position (every order book counted). */
  missed: number;
  /** `missed` is an extrapolation (truncated plans), not a count. */
  estimated: boolean;
  /** The gap could not be replayed completely. */
  truncated: boolean;
}

const msOf = (id: string) => Number(id.split('-')[0]);

/**
 * Whether entries after `after` may have been trimmed from the history. Trimming removes
 * the oldest entries, so the gap is intact when the oldest kept entry is at or before
 * the first id that can follow `after`. `after` = '0-0' (the stream was empty when the
 * reader started) is intact only if nothing was ever removed. Conservative in one rare
 * case: when `after` itself was trimmed but the entry right after it was not.
 */
async function gapExceedsHistory(source: ReplaySource, after: string): Promise<boolean> {
  if (after === '0-0') return ((source.removedCount ? await source.removedCount() : null) ?? 0) > 0;
  const first = await source.firstId();
  return first !== null && compareStreamIds(first, nextStreamId(after)) > 0;
}

/** An order book supersedes the previous one of its code: replay only the last of each. */
function latestBooks(messages: OutMessage[]): OutMessage[] {
  const last = new Map<string, OutMessage>();
  for (const m of messages) if (m.type === 'orderbook_update' && m.key !== undefined) last.set(m.key, m);
  return last.size === 0 ? messages : messages.filter((m) => m.type !== 'orderbook_update' || m.key === undefined || last.get(m.key) === m);
}

/** `counted` relevant messages over [fromMs, toMs] extrapolated to a gap of `gapMs`. */
function extrapolate(counted: number, fromMs: number, toMs: number, gapMs: number): number {
  const span = toMs - fromMs;
  if (!(span > 0) || !(gapMs > span)) return counted;
  return Math.max(counted, Math.round((counted * gapMs) / span));
}

function relevant(event: MarketEvent, args: ReplayArgs): boolean {
  if (event.type === 'alert' && args.alerts === false) return false;
  return isRelevant(event, args.subs, args.userId);
}

/** The history after `after` was trimmed: estimate the gap from a sample of what is kept. */
async function estimateTrimmed(source: ReplaySource, args: ReplayArgs & { after: string; upto: string }, limits: ReplayLimits): Promise<ReplayPlan> {
  const first = await source.firstId();
  const afterMs = args.after === '0-0' ? (args.afterMs ?? NaN) : msOf(args.after);
  const gapMs = msOf(args.upto) - afterMs;
  if (first === null) return { messages: [], missed: 0, estimated: true, truncated: true };
  const page = await source.range(previousStreamId(first), Math.min(limits.pageSize ?? 1000, limits.maxScan));
  let counted = 0;
  let lastMs = msOf(first);
  for (const [id, event] of page) {
    if (compareStreamIds(id, args.upto) > 0) break;
    lastMs = msOf(id);
    if (relevant(event, args)) counted++;
  }
  return { messages: [], missed: Number.isFinite(gapMs) ? extrapolate(counted, msOf(first), lastMs, gapMs) : counted, estimated: true, truncated: true };
}

/**
 * Plan the replay of events in (after, upto] for a session.
 * @throws when the history cannot be read (Redis unavailable)
 */
export async function planReplay(source: ReplaySource, args: ReplayArgs, limits: ReplayLimits): Promise<ReplayPlan> {
  const { after, upto } = args;
  if (after === null || upto === null || compareStreamIds(upto, after) <= 0) return { messages: [], missed: 0, estimated: false, truncated: false };
  if (await gapExceedsHistory(source, after)) return estimateTrimmed(source, { ...args, after, upto }, limits);
  const pageSize = limits.pageSize ?? 1000;
  const afterMs = after === '0-0' ? (args.afterMs ?? NaN) : msOf(after);
  const messages: OutMessage[] = [];
  const books = new Set<string>();
  let missed = 0;
  let replayable = 0;
  let scanned = 0;
  let cursor = after;
  const truncate = (lastId: string): ReplayPlan => ({
    messages: [],
    missed: extrapolate(missed, afterMs, msOf(lastId), msOf(upto) - afterMs),
    estimated: true,
    truncated: true,
  });
  for (;;) {
    const want = Math.min(pageSize, limits.maxScan - scanned + 1);
    const page = await source.range(cursor, want);
    for (const [id, event] of page) {
      if (compareStreamIds(id, upto) > 0) return { messages: latestBooks(messages), missed, estimated: false, truncated: false };
      if (++scanned > limits.maxScan) return truncate(id);
      if (!relevant(event, args)) continue;
      missed++;
      // Superseded order books are not replayed: only a code's first one adds to the replay.
      if (event.type !== 'orderbook' || !books.has(event.code)) {
        if (event.type === 'orderbook') books.add(event.code);
        if (++replayable > limits.maxMessages) return truncate(id);
      }
      messages.push(messageForEvent(event, id));
    }
    const last = page[page.length - 1];
    if (!last || page.length < want) return { messages: latestBooks(messages), missed, estimated: false, truncated: false };
    cursor = last[0];
  }
}
