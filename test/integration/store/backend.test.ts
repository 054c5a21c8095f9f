/**
 * The storage contract on this pass's backend (sqlite, or PostgreSQL in the postgres
 * pass): the behaviours repositories rely on and in which the two engines differ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkUpsert } from '../../../daemon/store/bulk.js';
import { isUniqueViolation } from '../../../daemon/store/db.js';
import { MIGRATIONS } from '../../../daemon/store/migrations/index.js';
import { createPricesRepo } from '../../../daemon/store/prices-repo.js';
import { createStocksRepo } from '../../../daemon/store/stocks-repo.js';
import { createUsersRepo } from '../../../daemon/store/users-repo.js';
import { freshStoreSettings, openTestDb, testBackend, type TestDb } from '../../helpers/test-store.js';

describe(`storage on ${testBackend()}`, () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb('backend');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs on the backend this pass is for', () => {
    expect(t.db.dialect.name).toBe(testBackend());
    if (testBackend() === 'postgres') expect(t.db.label).toMatch(/^postgres:\/\/[^:@]+@127\.0\.0\.1:5432\/stockscreen_test_\w+ \(schema t_backend_\w+\)$/);
  });

  it('applies every migration once when several processes migrate a new database at once', async () => {
    // Given three handles opening (and migrating) the same empty database concurrently
    const settings = await freshStoreSettings('backend-race');
    const handles = await Promise.all([1, 2, 3].map(() => openTestDb('backend-race', settings)));
    // Then all of them opened, and each migration is recorded exactly once
    const rows = await handles[0]!.db.all<{ id: number; n: number }>('SELECT id, COUNT(*) AS n FROM schema_migrations GROUP BY id ORDER BY id');
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ id: m.id, n: 1 })));
    for (const h of handles) await h.close();
  });

  it('keeps integers above 2^31 and fractional prices exact, as JS numbers', async () => {
    await createStocksRepo(t.db).merge(t.db, [{ code: '005930', name: '삼성전자', market: 'KOSPI', shares_outstanding: 5_919_637_922 }]);
    const prices = createPricesRepo(t.db);
    await t.db.transaction((tx) =>
      prices.upsertBars(tx, [{ stock_code: '005930', trade_date: '2026-03-20', open_price: 202000, high_price: 202500, low_price: 199000, close_price: 199400.5, volume: 35_279_762, trading_value: 7_050_000_000_000, market_cap: 1_180_376_301_646_800, shares_outstanding: 5_919_637_922 }]),
    );
    const [bar] = await prices.history('005930', {});
    expect(bar).toMatchObject({ close_price: 199400.5, trading_value: 7_050_000_000_000, market_cap: 1_180_376_301_646_800 });
    expect(typeof bar!.volume).toBe('number');
    expect((await createStocksRepo(t.db).get('005930'))?.shares_outstanding).toBe(5_919_637_922);
  });

  it('bulk upserts keep the last row of a repeated key and update existing rows', async () => {
    const spec = { table: 'market_index', columns: ['market', 'trade_date', 'close', 'computed'], key: ['market', 'trade_date'] };
    await t.db.transaction((tx) => bulkUpsert(tx, spec, [['KOSPI', '2026-03-19', 2500, 0], ['KOSPI', '2026-03-20', 2510, 0], ['KOSPI', '2026-03-20', 2520, 0]]));
    await t.db.transaction((tx) => bulkUpsert(tx, spec, [['KOSPI', '2026-03-19', 2490.25, 0]]));
    expect(await t.db.all('SELECT trade_date, close FROM market_index ORDER BY trade_date')).toEqual([
      { trade_date: '2026-03-19', close: 2490.25 },
      { trade_date: '2026-03-20', close: 2520 },
    ]);
  });

  it('rolls a failed transaction back whole', async () => {
    const before = await t.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM market_index');
    await expect(
      t.db.transaction(async (tx) => {
        await tx.run("INSERT INTO market_index (market, trade_date, close) VALUES ('KOSDAQ', '2026-03-20', 900)");
        await tx.run("INSERT INTO market_index (market, trade_date, close) VALUES ('KOSDAQ', '2026-03-21', -1)"); // CHECK (close > 0)
      }),
    ).rejects.toThrow();
    expect(await t.db.get('SELECT COUNT(*) AS n FROM market_index')).toEqual(before);
  });

  it('finds accounts by email whatever the case, and reports a duplicate email as a unique violation', async () => {
    const users = createUsersRepo(t.db);
    await users.create({ email: 'Trader@Example.com', name: null, password_hash: 'x' });
    expect((await users.findByEmail('trader@example.COM'))?.email).toBe('Trader@Example.com');
    const dup = await users.create({ email: 'TRADER@example.com', name: null, password_hash: 'y' }).catch((e: unknown) => e);
    expect(isUniqueViolation(dup)).toBe(true);
  });

  it('serialises read-check-write transactions: 20 concurrent increments of one counter all count', async () => {
    await t.db.run("INSERT INTO app_secrets (name, value, created_at) VALUES ('counter', '0', 'now')");
    await Promise.all(
      Array.from({ length: 20 }, () =>
        t.db.transaction(async (tx) => {
          const row = await tx.get<{ value: string }>("SELECT value FROM app_secrets WHERE name = 'counter'");
          await tx.run("UPDATE app_secrets SET value = ? WHERE name = 'counter'", [String(Number(row!.value) + 1)]);
        }),
      ),
    );
    expect(await t.db.get("SELECT value FROM app_secrets WHERE name = 'counter'")).toEqual({ value: '20' });
  });
});
