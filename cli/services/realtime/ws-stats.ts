/**
 * Logic of `stockscreen ws-stats`: GET /v1/ws/stats,
 * its rows for the terminal and for pipes, the trend history of the live dashboard and
 * the polling loop of `--watch`.
 */
import type { WsStats } from '../../../daemon/contract/ws.js';
import { formatError } from '../session/errors.js';
import type { ApiResponse } from '../transport/api-client.js';
import { bytes, num } from '../output/market-format.js';
import type { CellInput, RecordData } from '../output/output.js';
import type { Session } from '../session/session.js';

/** The stats path (spec: prefix /v1). */
export const WS_STATS_PATH = '/v1/ws/stats';

/**
 * GET /v1/ws/stats (needs a login, like every /v1 endpoint).
 * @throws CliError when the daemon cannot be reached or answers an error
 */
export function fetchWsStats(session: Session): Promise<ApiResponse<WsStats>> {
  return session.api.request<WsStats>({ path: WS_STATS_PATH });
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '' : `${v} ms`);

/** The stats as label/value pairs (spec fields first). */
export function wsStatsRecord(s: WsStats): RecordData {
  const by = s.subscriptions_by_type;
  const fields: [string, CellInput][] = [
    ['active_connections', num(s.active_connections)],
    ['total_subscriptions', `${num(s.total_subscriptions)} (stock ${num(by.stock)}, market ${num(by.market)}, sector ${num(by.sector)})`],
    ['messages_sent', num(s.messages_sent)],
    ['messages_per_second', num(s.messages_per_second ?? null, 1)],
    ['queued_messages', num(s.queued_messages)],
    ['saved_sessions', s.saved_sessions === null ? { text: 'unknown (Redis unreachable)', tone: 'bad' } : num(s.saved_sessions)],
    ['batching', s.batching_enabled ? `on, every ${s.batch_interval_ms} ms` : 'off'],
    ['rate_limit', s.rate_limiting_enabled ? `${num(s.rate_limit)} messages/s per connection` : 'off'],
    ['send_latency', s.send_latency_ms ? `p50 ${ms(s.send_latency_ms.p50)}, p99 ${ms(s.send_latency_ms.p99)}, max ${ms(s.send_latency_ms.max)}` : ''],
    ['memory', s.memory ? `rss ${bytes(s.memory.rss)}, heap ${bytes(s.memory.heap_used)} of ${bytes(s.memory.heap_total)}` : ''],
    ['bytes_per_connection', s.bytes_per_connection === null || s.bytes_per_connection === undefined ? '—' : bytes(s.bytes_per_connection)],
  ];
  return { fields };
}

/** Column names of the piped `--watch` rows. */
export const WS_STATS_COLUMNS = ['time', 'active_connections', 'total_subscriptions', 'messages_per_second', 'messages_sent', 'queued_messages', 'rss_bytes', 'heap_used_bytes'] as const;

/** One piped `--watch` row (raw numbers, in WS_STATS_COLUMNS order). */
export function wsStatsRow(s: WsStats, at: Date): CellInput[] {
  return [at.toISOString(), s.active_connections, s.total_subscriptions, s.messages_per_second ?? '', s.messages_sent, s.queued_messages, s.memory?.rss ?? '', s.memory?.heap_used ?? ''];
}

/** Recent samples of the dashboard's trend lines, oldest first. */
export interface StatsHistory {
  connections: number[];
  subscriptions: number[];
  messagesPerSecond: number[];
  rss: number[];
  heapUsed: number[];
}

/** An empty history. */
export const EMPTY_HISTORY: StatsHistory = { connections: [], subscriptions: [], messagesPerSecond: [], rss: [], heapUsed: [] };

/** `history` with `s` appended, each line keeping at most `limit` samples. */
export function appendHistory(history: StatsHistory, s: WsStats, limit: number): StatsHistory {
  const add = (line: number[], v: number | undefined) => (v === undefined ? line : [...line, v].slice(-limit));
  return {
    connections: add(history.connections, s.active_connections),
    subscriptions: add(history.subscriptions, s.total_subscriptions),
    messagesPerSecond: add(history.messagesPerSecond, s.messages_per_second),
    rss: add(history.rss, s.memory?.rss),
    heapUsed: add(history.heapUsed, s.memory?.heap_used),
  };
}

/** Options of pollStats. */
export interface PollOptions {
  intervalMs: number;
  /** Stop after this many samples. */
  count?: number;
  signal: AbortSignal;
}

/**
 * Call `fetch` now and then every `intervalMs` until the signal aborts or `count` samples
 * were taken, handing each sample to `onSample`. A failed poll after the first is
 * reported on `stderr` and the loop goes on (the daemon may be restarting).
 * @throws what the first poll throws
 */
export async function pollStats<T>(fetch: () => Promise<T>, options: PollOptions, onSample: (sample: T) => void, stderr: { write(s: string): unknown }): Promise<void> {
  const { signal } = options;
  for (let taken = 0; !signal.aborted && (options.count === undefined || taken < options.count); ) {
    try {
      onSample(await fetch());
    } catch (err) {
      if (taken === 0) throw err;
      stderr.write(formatError(err));
    }
    taken++;
    if (options.count !== undefined && taken >= options.count) break;
    await abortableDelay(options.intervalMs, signal);
  }
}

/** Resolve after `delayMs` or as soon as `signal` aborts. */
export function abortableDelay(delayMs: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, delayMs);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** What the live dashboard receives. */
export type StatsEvent = { type: 'sample'; stats: WsStats; at: Date } | { type: 'error'; message: string };

/** What the live dashboard shows. */
export interface StatsView {
  latest: WsStats | null;
  at: Date | null;
  history: StatsHistory;
  /** The last poll failure, cleared by the next sample. */
  error: string | null;
}

/** The dashboard before the first sample. */
export const EMPTY_STATS_VIEW: StatsView = { latest: null, at: null, history: EMPTY_HISTORY, error: null };

/** Fold one poll result into the dashboard (trend lines keep `limit` samples). */
export function reduceStatsView(view: StatsView, event: StatsEvent, limit = 60): StatsView {
  if (event.type === 'error') return { ...view, error: event.message };
  return { latest: event.stats, at: event.at, history: appendHistory(view.history, event.stats, limit), error: null };
}
