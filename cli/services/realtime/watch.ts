/**
 * Logic of `stockscreen watch`: the subscribe requests for codes, markets and sectors,
 * the access token for each (re)connection, the starting quotes of the rows, which
 * targets the server rejected, and the NDJSON stream (`--json` or piped stdout): every
 * server message on its own line, inner batch messages one by one, until Ctrl-C,
 * `--count` messages or `--duration`. Connection events go to stderr.
 */
import type { ErrorMessage, ReceivedMessage, SubscriptionType } from '../../../daemon/contract/ws.js';
import type { CliOutput } from '../../io.js';
import { API_PREFIX } from '../transport/api-client.js';
import { CliError, EXIT } from '../session/errors.js';
import { formatDuration } from '../output/duration.js';
import type { Session } from '../session/session.js';
import type { WatchSeed } from './watch-state.js';
import type { ConnectionStatus, SubscriptionRequest, WsClient, WsClientEvent } from '../transport/ws-client.js';
import type { SequenceAnomaly } from '../transport/ws-frames.js';

/** What to watch. */
export interface WatchTargets {
  codes: string[];
  markets: string[];
  sectors: string[];
}

/** The subscribe requests for `targets` (empty kinds left out). */
export function subscriptionRequests(targets: WatchTargets): SubscriptionRequest[] {
  const requests: SubscriptionRequest[] = [
    { subscription_type: 'stock', targets: [...new Set(targets.codes)] },
    { subscription_type: 'market', targets: [...new Set(targets.markets.map((m) => m.toUpperCase()))] },
    { subscription_type: 'sector', targets: [...new Set(targets.sectors)] },
  ];
  return requests.filter((r) => r.targets.length > 0);
}

/** Which requested targets the server accepted or refused (SUBSCRIPTION_FAILED). */
export interface SubscriptionLedger {
  /** Read a message; returns the targets it newly refused (empty otherwise). */
  observe(message: ReceivedMessage): string[];
  /** True once every requested target was refused. */
  allRejected(): boolean;
}

const ledgerKey = (type: SubscriptionType, target: string) => `${type}:${type === 'market' ? target.trim().toUpperCase() : target.trim()}`;

/** Create the ledger of `requests`. */
export function createSubscriptionLedger(requests: SubscriptionRequest[]): SubscriptionLedger {
  const wanted = new Set(requests.flatMap((r) => r.targets.map((t) => ledgerKey(r.subscription_type, t))));
  const rejected = new Set<string>();
  return {
    observe(m) {
      if (m.type !== 'error' || m.code !== 'SUBSCRIPTION_FAILED') return [];
      const details = ((m as ErrorMessage).details ?? {}) as { subscription_type?: SubscriptionType; targets?: unknown };
      const type = details.subscription_type;
      if (!type) return [];
      // Without a target list (too many targets) the whole request of that kind failed.
      const named = Array.isArray(details.targets) ? details.targets.map(String) : (requests.find((r) => r.subscription_type === type)?.targets ?? []);
      const fresh = named.filter((t) => wanted.has(ledgerKey(type, t)) && !rejected.has(ledgerKey(type, t)));
      for (const t of fresh) rejected.add(ledgerKey(type, t));
      return fresh;
    },
    allRejected: () => wanted.size > 0 && rejected.size >= wanted.size,
  };
}

/** Renew the access token when it expires within this margin before (re)connecting. */
const RENEW_MARGIN_MS = 60_000;

/**
 * The token source of the WebSocket connections: undefined when not logged in (the
 * watch is anonymous: public data, no alerts). An access token close to expiry is
 * renewed first through an authenticated call (the API client renews on 401).
 */
export async function wsTokenSource(session: Session, now: () => number = Date.now): Promise<(() => Promise<string | undefined>) | undefined> {
  if (!(await session.store.get(session.profile))) return undefined;
  return async () => {
    const saved = await session.store.get(session.profile);
    if (!saved) return undefined;
    if (Date.parse(saved.expires_at) - now() < RENEW_MARGIN_MS) {
      await session.api.request({ path: `${API_PREFIX}/users/me` }).catch(() => undefined);
      return (await session.store.get(session.profile))?.access_token;
    }
    return saved.access_token;
  };
}

/** The last quotes of `codes` (GET /stocks/{code}/price); codes that fail are left out. */
export async function fetchSeeds(session: Session, codes: string[]): Promise<WatchSeed[]> {
  const results = await Promise.allSettled(
    codes.map((code) => session.api.request<WatchSeed>({ path: `${API_PREFIX}/stocks/${encodeURIComponent(code)}/price` })),
  );
  return results.flatMap((r) => (r.status === 'fulfilled' ? [pickSeed(r.value.data)] : []));
}

function pickSeed(d: WatchSeed): WatchSeed {
  return { code: d.code, name: d.name, price: d.price, change: d.change, change_percent: d.change_percent, volume: d.volume };
}

/** A status change worth a line on stderr (none for the first connection attempt). */
export function describeStatus(status: ConnectionStatus, first: boolean): string | undefined {
  switch (status.state) {
    case 'connected':
      if (first) return `connected (session ${status.sessionId}); Ctrl-C to stop`;
      return `reconnected with a new session ${status.sessionId}${status.restoreFailed ? ` (old session ${status.restoreFailed})` : ''}; subscriptions renewed, messages sent meanwhile are lost`;
    case 'restored':
      return `reconnected: session ${status.sessionId} restored, ${status.estimated ? 'about ' : ''}${status.missed} missed message(s)${status.historyTruncated ? ' (more than the server keeps: a fresh snapshot was sent instead)' : ' replayed'}`;
    case 'reconnecting':
      return `connection lost (${status.reason}); reconnecting in ${formatDuration(status.delayMs)} (attempt ${status.attempt})`;
    default:
      return undefined;
  }
}

/** A server `error` message as a warning line (INVALID_TOKEN: the watch continues anonymously). */
export function describeServerError(e: ErrorMessage): string {
  const hint = e.code === 'INVALID_TOKEN' ? ' (continuing without login: no alerts; run `stockscreen login`)' : '';
  return `warning: ${e.code}: ${e.message}${hint}`;
}

/** A sequence problem as a warning line. */
export function describeAnomaly(a: SequenceAnomaly): string {
  return a.kind === 'gap'
    ? `warning: sequence gap: expected ${a.expected}, got ${a.got} (${a.got - a.expected} message(s) lost)`
    : `warning: sequence went back: expected ${a.expected}, got ${a.got}`;
}

/** When the stream ends. */
export interface StopConditions {
  /** Stop after this many messages. */
  count?: number;
  durationMs?: number;
  signal: AbortSignal;
}

/**
 * Run `client` until a stop condition and call `onMessage` for every message. Resolves
 * after the client stopped.
 * @throws CliError when the first connection fails or every target was refused
 */
export function runUntilStopped(client: WsClient, ledger: SubscriptionLedger, stderr: CliOutput, stop: StopConditions, onMessage: (m: ReceivedMessage) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let received = 0;
    let greeted = false;
    let done = false;
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      off();
      clearTimeout(timer);
      stop.signal.removeEventListener('abort', onAbort);
      void client.stop().then(() => (err ? reject(err) : resolve()), reject);
    };
    const onAbort = () => finish();
    const off = client.on((event: WsClientEvent) => {
      if (done) return;
      if (event.type === 'status') {
        const line = describeStatus(event.status, !greeted);
        if (event.status.state === 'connected' || event.status.state === 'restored') greeted = true;
        if (line) stderr.write(line + '\n');
      } else if (event.type === 'anomaly') stderr.write(describeAnomaly(event.anomaly) + '\n');
      else if (event.type === 'protocol_error') stderr.write(`warning: ${event.error}\n`);
      else {
        onMessage(event.message);
        received++;
        const refused = ledger.observe(event.message);
        if (refused.length) stderr.write(`warning: not subscribed: ${(event.message as ErrorMessage).message}\n`);
        else if (event.message.type === 'error') stderr.write(describeServerError(event.message as ErrorMessage) + '\n');
        if (ledger.allRejected()) {
          finish(new CliError({ code: 'SUBSCRIPTION_FAILED', message: `nothing to watch: ${(event.message as ErrorMessage).message}`, exitCode: EXIT.ERROR }));
        } else if (stop.count !== undefined && received >= stop.count) finish();
      }
    });
    const timer = stop.durationMs === undefined ? undefined : setTimeout(() => finish(), stop.durationMs);
    stop.signal.addEventListener('abort', onAbort, { once: true });
    if (stop.signal.aborted) return finish();
    client.start().catch(finish);
  });
}
