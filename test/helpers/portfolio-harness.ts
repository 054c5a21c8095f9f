/**
 * A small real stack for the portfolio and alert tests: a fresh database of this
 * pass's backend (test-store.ts) with the real migrations, the market repositories, users with
 * real tokens, and the express app built by `buildApp` with the given route registrars,
 * served on port 0.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tier } from '../../daemon/kernel/roles.js';
import { createTokenService, type TokenService } from '../../daemon/auth/tokens.js';
import { buildApp, type RouteRegistrar } from '../../daemon/http/app.js';
import { createLogger } from '../../daemon/infra/logger.js';
import { createMetrics } from '../../daemon/infra/metrics.js';
import { systemClock } from '../../daemon/infra/clock.js';
import { createMarketDataService, type MarketDataService, type RecordsBatch } from '../../daemon/market/market-data-service.js';
import type { DailyBar, IndexBar, Market } from '../../daemon/kernel/records.js';
import { createFinancialsRepo } from '../../daemon/store/financials-repo.js';
import { createIndexRepo, type IndexRepo } from '../../daemon/store/index-repo.js';
import { createIndicatorsRepo, type IndicatorsRepo } from '../../daemon/store/indicators-repo.js';
import { createPricesRepo, type PricesRepo } from '../../daemon/store/prices-repo.js';
import type { Db } from '../../daemon/store/db.js';
import type { StoreSettings } from '../../daemon/store/open.js';
import { createStocksRepo, type StocksRepo } from '../../daemon/store/stocks-repo.js';
import type { StockUpdate } from '../../daemon/store/stocks-repo.js';
import { createUsersRepo, type UsersRepo } from '../../daemon/store/users-repo.js';
import { openTestDb } from './test-store.js';

/** A temp database with the market repositories and accounts. */
export interface TestStore {
  dir: string;
  /** Open another handle on this database with openTestDb(label, settings). */
  settings: StoreSettings & { data_dir: string };
  db: Db;
  users: UsersRepo;
  tokens: TokenService;
  stocks: StocksRepo;
  prices: PricesRepo;
  index: IndexRepo;
  indicators: IndicatorsRepo;
  market: MarketDataService;
  /** Create a user with a tier; returns its id and a bearer token. */
  user(tier?: Tier): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

/** Create a fresh database of this pass's backend with the real schema. */
export async function openTestStore(label: string): Promise<TestStore> {
  const handle = await openTestDb(label);
  const { db, settings } = handle;
  const dir = settings.data_dir;
  const users = createUsersRepo(db);
  const tokens = createTokenService({ secret: `${label}-test-secret-0123456789abcdef-0123456789`, ttlSeconds: 3600, clock: systemClock, isRevoked: async () => false });
  const stocks = createStocksRepo(db);
  const prices = createPricesRepo(db);
  const index = createIndexRepo(db);
  const indicators = createIndicatorsRepo(db);
  const market = createMarketDataService({ db, stocks, prices, financials: createFinancialsRepo(db), index, indicators });
  let n = 0;
  return {
    dir, settings, db, users, tokens, stocks, prices, index, indicators, market,
    async user(tier = 'free') {
      const row = await users.create({ email: `${label}-${n++}-${Date.now()}@example.com`, name: null, password_hash: 'x', tier });
      return { id: row.id, token: (await tokens.sign({ id: row.id, tier, role: 'user' })).token };
    },
    close: () => handle.close(),
  };
}

/** A stock update with the fields the loaders require. */
export function stock(code: string, name: string, market: Market, sector: string | null, shares: number | null = null): StockUpdate {
  return {
    code, name, market, sector, name_english: name, industry: null, listing_date: '2000-01-03', shares_outstanding: shares, board: null,
    settle_month: 12, is_administrative: false, is_spac: false, is_preferred: false,
  };
}

/** A daily bar with OHLC all at `close`. */
export function bar(code: string, date: string, close: number, volume = 1000): DailyBar {
  return {
    stock_code: code, trade_date: date, open_price: close, high_price: close, low_price: close, close_price: close, volume,
    trading_value: Math.round(close * volume), market_cap: null, shares_outstanding: null,
  };
}

/** A KOSPI index bar. */
export function kospi(date: string, close: number): IndexBar {
  return { market: 'KOSPI', trade_date: date, open: close, high: close, low: close, close, volume: null, trading_value: null };
}

/** Load records through the market data service (one transaction). */
export async function loadMarket(store: TestStore, batch: Partial<RecordsBatch>): Promise<void> {
  await store.market.apply({ stocks: [], bars: [], halts: [], financials: [], index: [], ...batch });
}

/** A served app. */
export interface TestServer {
  url: string;
  /** JSON request; resolves with the status and parsed body (null for an empty body). */
  request(path: string, init?: { method?: string; json?: unknown; token?: string }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** Build the app with `registrars` over the store's accounts and listen on port 0. */
export async function serveRoutes(store: TestStore, registrars: RouteRegistrar[]): Promise<TestServer> {
  const { app } = buildApp({
    logger: createLogger('silent'), metrics: createMetrics(), tokens: store.tokens, users: store.users, bodyLimit: '1mb', trustProxy: false,
    version: 'test', isDraining: () => false, registrars, health: { pingDb: async () => true, pingRedis: async () => true },
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async request(path, init = {}) {
      const headers = new Headers();
      if (init.json !== undefined) headers.set('content-type', 'application/json');
      if (init.token) headers.set('authorization', `Bearer ${init.token}`);
      const res = await fetch(url + path, { method: init.method ?? 'GET', headers, body: init.json !== undefined ? JSON.stringify(init.json) : undefined });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
