/**
 * Handlers of client messages. Synchronous ones return
 * undefined; refresh_token and reconnect return a promise the connection awaits before
 * handling the next message, so replies keep the order of requests. A successful
 * subscribe is followed by the current `market_status` of markets new to the connection
 * (market-status.ts).
 */
import type { AuthUser, TokenService } from '../auth/tokens.js';
import { marketsOfTargets } from './market-status.js';
import { parseClientMessage, serverMessages, type ClientMessage, type OutMessage, type SubscriptionType } from './protocol.js';
import { restoreSession, type RestoreDeps, type RestoreTarget } from './restore.js';
import type { ScreenClientMessage } from './screen-protocol.js';
import { normalizeTarget, planSubscribe, type SubscriptionSet } from './subscriptions.js';

/** What the handlers need of the connection they serve (besides what a restore needs). */
export interface ClientMessageTarget extends RestoreTarget {
  readonly subscriptions: SubscriptionSet;
  readonly user: AuthUser | null;
  readonly deps: RestoreDeps & {
    settings: RestoreDeps['settings'] & { maxTargetsPerRequest: number };
    tokens: Pick<TokenService, 'verify'>;
    observer: { onClientMessage(type: string): void };
  };
  send(message: OutMessage): void;
  setUser(user: AuthUser): void;
  leaveSubscription(type: SubscriptionType, target: string): void;
}

type Connection = ClientMessageTarget;

type Of<T extends ClientMessage['type']> = Exclude<Extract<ClientMessage, { type: T }>, ScreenClientMessage>;

function subscribe(conn: Connection, m: Of<'subscribe'>): void {
  const { settings, universe, clock } = conn.deps;
  const plan = planSubscribe(conn.subscriptions, m.subscription_type, m.targets, universe, {
    maxTargetsPerRequest: settings.maxTargetsPerRequest,
    maxSubscriptions: settings.maxSubscriptions,
  });
  if (!plan.ok) return conn.error('SUBSCRIPTION_FAILED', plan.message, plan.details);
  for (const target of plan.added) conn.joinSubscription(m.subscription_type, target);
  if (plan.accepted.length > 0) {
    conn.send(serverMessages.subscribed(m.subscription_type, plan.accepted, clock.now()));
    const markets = marketsOfTargets(universe, m.subscription_type, plan.accepted);
    for (const status of conn.announceMarkets(markets, false)) conn.send(status);
  }
  if (plan.unknown.length > 0) {
    conn.error('SUBSCRIPTION_FAILED', `Unknown ${label(m.subscription_type)}: ${plan.unknown.slice(0, 10).join(', ')}`, {
      reason: 'unknown_targets',
      subscription_type: m.subscription_type,
      targets: plan.unknown,
    });
  }
}

/** Live screens: handled by the live-screen hook (live-screens.ts) when the daemon has one. */
function screenMessage(conn: Connection, m: ScreenClientMessage): Promise<void> | undefined {
  const live = conn.deps.liveScreens;
  if (!live) return void conn.error('SUBSCRIPTION_FAILED', 'Live screens are not available on this server', { reason: 'unavailable', subscription_type: 'screen' });
  if (m.type === 'unsubscribe') return void live.unsubscribe(conn, m);
  return live.subscribe(conn, m);
}

function isScreen(m: ClientMessage): m is ScreenClientMessage {
  return (m.type === 'subscribe' || m.type === 'unsubscribe') && m.subscription_type === 'screen';
}

function label(type: SubscriptionType): string {
  return type === 'stock' ? 'stock code(s)' : type === 'market' ? 'market(s)' : 'sector(s)';
}

function unsubscribe(conn: Connection, m: Of<'unsubscribe'>): void {
  const targets = [...new Set(m.targets.map((t) => normalizeTarget(m.subscription_type, t)))];
  for (const target of targets) conn.leaveSubscription(m.subscription_type, target);
  conn.send(serverMessages.unsubscribed(m.subscription_type, targets, conn.deps.clock.now()));
}

async function refreshToken(conn: Connection, token: string): Promise<void> {
  const { tokens, clock } = conn.deps;
  let user;
  try {
    user = await tokens.verify(token);
  } catch (err) {
    const reason = (err as { details?: { reason?: string } }).details?.reason ?? 'invalid';
    return conn.error('TOKEN_REFRESH_ERROR', 'Token refresh failed: the new token is not valid', { reason });
  }
  if (conn.user && conn.user.id !== user.id) {
    return conn.error('TOKEN_REFRESH_ERROR', 'Token refresh failed: the token belongs to another user', { reason: 'different_user' });
  }
  conn.setUser(user);
  conn.send(serverMessages.tokenRefreshed(user.id, user.exp, clock.now()));
}

/** Handle one client frame; a promise when the handler is asynchronous. Never throws for bad input. */
export function handleClientMessage(conn: Connection, text: string): Promise<void> | undefined {
  const parsed = parseClientMessage(text);
  const { observer, clock } = conn.deps;
  if (!parsed.ok) {
    observer.onClientMessage('invalid');
    conn.error('INVALID_MESSAGE', parsed.message, parsed.details);
    return undefined;
  }
  const m = parsed.message;
  observer.onClientMessage(m.type);
  if (isScreen(m)) return screenMessage(conn, m);
  switch (m.type) {
    case 'subscribe':
      subscribe(conn, m);
      return undefined;
    case 'unsubscribe':
      unsubscribe(conn, m);
      return undefined;
    case 'ping':
      conn.send(serverMessages.pong(clock.now()));
      return undefined;
    case 'refresh_token':
      return refreshToken(conn, m.token);
    case 'reconnect':
      return restoreSession(conn, m.session_id, m.last_sequence).then(() => undefined);
  }
}
