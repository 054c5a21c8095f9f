/**
 * A staged load writes its batches in short pieces and builds the stage's secondary indexes after
 * its rows; what it publishes is the market one transaction would have written, with the live
 * tables' indexes, and on sqlite another write gets the writer between two pieces of one batch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMarketDataService, marketDataDeps, type MarketDataService, type RecordsBatch } from '../../../daemon/market/market-data-service.js';
import type { Db } from '../../../daemon/store/db.js';
import { generateSampleMarket } from '../../../loaders/sample-market.js';
import { openTestDb, testBackend, type TestDb } from '../../helpers/test-store.js';

/** The sample market in one batch, plus a halt on a day with a bar (never kept) and one after the last bar. */
function oneBatch(): RecordsBatch {
  const chunks = [...generateSampleMarket({ seed: 3, stocks: 12, days: 400 })];
  const all: RecordsBatch = { stocks: [], bars: [], halts: [], financials: [], index: [] };
  for (const c of chunks) {
    all.stocks = [...all.stocks, ...c.stocks];
    all.bars = [...all.bars, ...c.bars];
    all.halts = [...all.halts, ...c.halts];
    all.financials = [...all.financials, ...c.financials];
    all.index = [...all.index, ...c.index];
  }
  const bar = all.bars[0]!;
  const last = all.bars.filter((b) => b.stock_code === bar.stock_code).at(-1)!;
  all.halts = [
    ...all.halts.filter((h) => h.stock_code !== bar.stock_code),
    { stock_code: bar.stock_code, trade_date: bar.trade_date, last_close: 1000, market_cap: null, shares_outstanding: null },
    { stock_code: bar.stock_code, trade_date: '2099-01-02', last_close: last.close_price, market_cap: null, shares_outstanding: null },
  ];
  return all;
}

/** The rows of the tables a load writes, sorted (columns as stored). */
async function rows(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of ['daily_prices', 'trading_halts', 'financials', 'market_index']) {
    out[table] = (await db.all(`SELECT * FROM ${table}`)).map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** Columns of the secondary indexes on `table`. */
async function indexedColumns(db: Db, table: string): Promise<string[]> {
  if (db.dialect.name === 'sqlite') {
    const sql = await db.all<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [table]);
    return sql.map((r) => r.sql.replace(/^.*\(/, '(')).sort();
  }
  const defs = await db.all<{ def: string }>("SELECT indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexname NOT LIKE '%pkey'", [table]);
  return defs.map((r) => r.def.replace(/^.*\(/, '(')).sort();
}

describe(`a staged load (${testBackend()})`, () => {
  let staged: TestDb;
  let direct: TestDb;
  let market: MarketDataService;
  const batch = oneBatch();

  beforeAll(async () => {
    [staged, direct] = await Promise.all([openTestDb('staged-market'), openTestDb('staged-market-direct')]);
    market = createMarketDataService(marketDataDeps(staged.db));
  });
  afterAll(async () => {
    await staged?.close();
    await direct?.close();
  });

  it('publishes the rows one transaction writes, with the live tables\' indexes, and reads the stage by date while computing', async () => {
    // Given the same batch written in one transaction into another database
    await createMarketDataService(marketDataDeps(direct.db)).apply(batch);
    // When it is loaded through a stage, indicators computed before the publish
    const run = await market.staged({ replace: true }, async (stage) => {
      await stage.apply(batch);
      return stage.computeIndicators();
    });
    // Then the published market holds the same rows (the halt on a day with a bar left out)
    expect(await rows(staged.db)).toEqual(await rows(direct.db));
    expect((await rows(staged.db)).trading_halts!.some((h) => h.includes('2099-01-02'))).toBe(true);
    expect(run.stocks).toBe(12);
    // And the live tables have the indexes they had before
    expect(await indexedColumns(staged.db, 'daily_prices')).toEqual(await indexedColumns(direct.db, 'daily_prices'));
    expect(await indexedColumns(staged.db, 'stocks')).toEqual(await indexedColumns(direct.db, 'stocks'));
    expect(await indexedColumns(staged.db, 'daily_prices')).toEqual(['(trade_date)']);
    await market.tidy();
  });

  it.skipIf(testBackend() !== 'sqlite')('lets a write queued during a batch in before the batch ends (sqlite has one writer)', async () => {
    const events: string[] = [];
    // When a batch of 4,800 bars is being staged and a write is queued right after it started
    await market.staged({ replace: true }, async (stage) => {
      const load = stage.apply(batch).then(() => events.push('batch written'));
      const write = staged.db.transaction((tx) => tx.run("INSERT INTO market_meta (key, value) VALUES ('probe', 'x') ON CONFLICT (key) DO NOTHING"))
        .then(() => events.push('other write'));
      await Promise.all([load, write]);
    });
    // Then the other write committed between two pieces of the batch, not after all of it
    expect(events).toEqual(['other write', 'batch written']);
  });
});
