/**
 * A small real stack for WebSocket tests: an http server on port 0 serving the express
 * app (with the ws routes) and the gateway's upgrades, a real market bus and session
 * store on the test Redis under a unique prefix, a real token service. Events are
 * published with `bus.publish` to stand in for the market feed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { createTokenService, type TokenService } from '../../../daemon/auth/tokens.js';
import type { Role } from '../../../daemon/kernel/roles.js';
import { buildApp } from '../../../daemon/http/app.js';
import { systemClock, type Clock } from '../../../daemon/infra/clock.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { createMetrics } from '../../../daemon/infra/metrics.js';
import { closeRedis, createRedisFactory, waitReady, type RedisFactory } from '../../../daemon/infra/redis.js';
import { createMarketBus, type StreamMarketBus } from '../../../daemon/market/bus.js';
import type { AlertEvent, MarketStatus, MarketStatusEvent, OrderBookEvent, PriceEvent } from '../../../daemon/kernel/events.js';
import type { Market } from '../../../daemon/kernel/records.js';
import type { UsersRepo } from '../../../daemon/store/users-repo.js';
import type { Connection } from '../../../daemon/ws/connection.js';
import { createWsGateway, type WsGateway, type WsGatewayOptions } from '../../../daemon/ws/gateway.js';
import { registerWsRoutes } from '../../../daemon/ws/routes.js';
import type { TestClient } from './client.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';

/** The test universe: code → market, sector, name. */
export const STOCKS: Record<string, { name: string; market: Market; sector: string }> = {
  '005930': { name: 'Samsung Electronics', market: 'KOSPI', sector: 'Semiconductors' },
  '000660': { name: 'SK hynix', market: 'KOSPI', sector: 'Semiconductors' },
  '035720': { name: 'Kakao', market: 'KOSPI', sector: 'Internet' },
  '247540': { name: 'EcoPro BM', market: 'KOSDAQ', sector: 'Batteries' },
  '091990': { name: 'Celltrion Healthcare', market: 'KOSDAQ', sector: 'Pharma' },
};
const SECTORS = new Set(Object.values(STOCKS).map((s) => s.sector));
const membersOf = (type: 'market' | 'sector', target: string) => Object.keys(STOCKS).filter((c) => STOCKS[c]![type] === target);

/** A price event of a universe stock; change is computed from prev_close 1000. */
export function priceEvent(code: string, price: number, extra: Partial<PriceEvent> = {}): PriceEvent {
  const s = STOCKS[code]!;
  return {
    type: 'price', code, name: s.name, market: s.market, sector: s.sector, price,
    change: price - 1000, change_percent: Math.round(((price - 1000) / 1000) * 10000) / 100,
    volume: 10, trading_value: price * 10, open: 1000, high: Math.max(1000, price), low: Math.min(1000, price), prev_close: 1000,
    ts: Date.parse('2025-03-04T01:00:00.000Z'), ...extra,
  };
}

/** An order-book event with one level per side. */
export function orderbookEvent(code: string, bid: number, ask: number): OrderBookEvent {
  const s = STOCKS[code]!;
  return { type: 'orderbook', code, market: s.market, sector: s.sector, bids: [{ price: bid, quantity: 5 }], asks: [{ price: ask, quantity: 7 }], ts: Date.parse('2025-03-04T01:00:01.000Z') };
}

/** A market-status event. */
export function statusEvent(market: Market, status: MarketStatus) {
  return { type: 'market_status' as const, market, status, ts: Date.parse('2025-03-04T00:00:00.000Z') };
}

/** One running gateway stack. */
export interface WsStack {
  /** ws://host:port */
  wsUrl: string;
  httpUrl: string;
  server: Server;
  gateway: WsGateway;
  bus: StreamMarketBus;
  redis: RedisFactory;
  commands: Redis;
  tokens: TokenService;
  prefix: string;
  /** Sign an access token for `userId`. */
  token(userId: string, role?: Role): Promise<string>;
  /**
   * Die like a killed process, as far as Redis can tell: from now on nothing this
   * instance writes reaches Redis (session saves, checkpoints, its liveness key). The
   * test then drops the clients' sockets (`ws.terminate()`).
   */
  kill(): void;
  close(): Promise<void>;
}

/** Options of a stack; `prefix` shares Redis state between stacks (two instances). */
export interface WsStackOptions {
  prefix?: string;
  clock?: Clock;
  options?: Partial<WsGatewayOptions>;
  maxLen?: number;
  /** Redis command timeout of the stack's connections (the daemon's default when absent). */
  redisCommandTimeoutMs?: number;
  snapshot?: (codes: string[]) => Promise<PriceEvent[]>;
  /** Current market status (gateway dep; absent: no market_status on subscribe). */
  marketStatus?: () => MarketStatusEvent[];
  /** Durable alert firings (gateway dep; absent: alerts replay from the bus). */
  missedAlerts?: (userId: string, fromMs: number, toMs: number, limit: number) => Promise<AlertEvent[]>;
  /** Remove the prefix's keys on close (default true; false for all but the last of shared stacks). */
  cleanup?: boolean;
}

const SECRET = 'ws-test-secret-ws-test-secret-0123456789abcdef';

/** Start a gateway stack on port 0. */
export async function startWsStack(label: string, opts: WsStackOptions = {}): Promise<WsStack> {
  const prefix = opts.prefix ?? testPrefix(`ws-${label}`);
  const url = testRedisUrl();
  const logger = createLogger('silent');
  const clock = opts.clock ?? systemClock;
  const redis = createRedisFactory({ url, prefix, logger, commandTimeoutMs: opts.redisCommandTimeoutMs });
  const commands = redis.connect('command', 'ws-test');
  await waitReady(commands, 5000);
  const bus = createMarketBus({ redis, logger, maxLen: opts.maxLen ?? 10_000 });
  const tokens = createTokenService({ secret: SECRET, ttlSeconds: 3600, clock, isRevoked: async () => false });
  const roles = new Map<string, Role>();
  const gateway = createWsGateway({
    bus, redis: commands, key: redis.key, tokens, logger, clock,
    universe: {
      hasStock: (c) => c in STOCKS, hasSector: (n) => SECTORS.has(n), markets: ['KOSPI', 'KOSDAQ'],
      marketOf: (c) => STOCKS[c]?.market, members: membersOf,
    },
    snapshot: opts.snapshot ?? (async () => []),
    marketStatus: opts.marketStatus,
    missedAlerts: opts.missedAlerts,
    options: opts.options,
  });
  await bus.ready();
  const users = { findById: async (id: string) => ({ id, tier: 'free', role: roles.get(id) ?? 'user' }) } as unknown as UsersRepo;
  const http = buildApp({
    logger, metrics: createMetrics(), tokens, users, bodyLimit: '1mb', trustProxy: false, version: 'test', isDraining: () => false,
    health: { pingDb: async () => true, pingRedis: async () => true },
    registrars: [(api) => registerWsRoutes(api, { gateway })],
  });
  const server = createServer(http.app);
  server.on('error', () => undefined);
  gateway.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    server, gateway, bus, redis, commands, tokens, prefix,
    async token(userId, role = 'user') {
      roles.set(userId, role);
      return (await tokens.sign({ id: userId, tier: 'free', role })).token;
    },
    kill() {
      commands.disconnect();
    },
    async close() {
      await gateway.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await bus.close();
      await closeRedis(commands);
      if (opts.cleanup !== false) await deleteKeys(url, prefix);
    },
  };
}

/** A fresh user id. */
export const newUserId = () => randomUUID();

/** Close the client and resolve once the server saved its session. */
export async function closeAndSave(s: WsStack, c: TestClient, sessionId: string): Promise<void> {
  const saved = new Promise<void>((resolve) => {
    const onClose = (conn: Connection) => {
      if (conn.sessionId !== sessionId) return;
      s.gateway.events.off('close', onClose);
      void conn.finished.then(resolve);
    };
    s.gateway.events.on('close', onClose);
  });
  await c.close();
  await saved;
}
