/**
 * Store wiring: one repository per aggregate over the open database, all made here (the role
 * `store` of the context). Repositories hold no connection of their own; the users repository
 * caches in process and hears other daemons' changes over pub/sub.
 */
import { createCachedUsersRepo } from '../auth/cached-users.js';
import { createMarketDataService } from '../market/market-data-service.js';
import { createAlertsRepo, type AlertsRepoHooks } from '../store/alerts-repo.js';
import { createBacktestsRepo } from '../store/backtests-repo.js';
import { createChannelsRepo } from '../store/channels-repo.js';
import type { Db } from '../store/db.js';
import { createDeliveriesRepo } from '../store/deliveries-repo.js';
import { createDesignationsRepo } from '../store/designations-repo.js';
import { createFinancialsRepo } from '../store/financials-repo.js';
import { createHoldingsRepo } from '../store/holdings-repo.js';
import { createIndexRepo } from '../store/index-repo.js';
import { createIndicatorsRepo } from '../store/indicators-repo.js';
import { createPresetsRepo } from '../store/presets-repo.js';
import { createPricesRepo } from '../store/prices-repo.js';
import { createRefreshTokensRepo } from '../store/refresh-tokens-repo.js';
import { createSchedulesRepo } from '../store/schedules-repo.js';
import { createSourceDatesRepo } from '../store/source-dates-repo.js';
import { createStocksRepo } from '../store/stocks-repo.js';
import { createTransactionsRepo } from '../store/transactions-repo.js';
import { createUsersRepo } from '../store/users-repo.js';
import type { MarketStore, StoreContext } from './context.js';
import type { CoreParts } from './core.js';

/** The market data's repositories and the service that writes them (the daemon, the worker and the benches). */
export function createMarketStore(db: Db): MarketStore {
  const stocks = createStocksRepo(db);
  const prices = createPricesRepo(db);
  const financials = createFinancialsRepo(db);
  const indicators = createIndicatorsRepo(db);
  const index = createIndexRepo(db);
  const designations = createDesignationsRepo(db);
  const marketData = createMarketDataService({ db, stocks, prices, financials, index, indicators, designations });
  return { stocks, prices, financials, indicators, index, designations, marketData };
}

/**
 * Every repository over the open database. `outbox` is what a firing's claim transaction also
 * records (its notification deliveries); it is called only once alerts run, after every part is built.
 */
export function buildStore(parts: CoreParts, outbox: AlertsRepoHooks): StoreContext {
  const { db } = parts;
  const { clock } = parts.core;
  return {
    db,
    ...createMarketStore(db),
    users: createCachedUsersRepo(createUsersRepo(db), { notifier: parts.redis.notifier, clock }),
    refreshTokens: createRefreshTokensRepo(db),
    presets: createPresetsRepo(db),
    alerts: createAlertsRepo(db, outbox),
    backtests: createBacktestsRepo(db),
    holdings: createHoldingsRepo(db),
    transactions: createTransactionsRepo(db),
    channels: createChannelsRepo(db),
    deliveries: createDeliveriesRepo(db),
    schedules: createSchedulesRepo(db),
    sourceDates: createSourceDatesRepo(db),
  };
}
