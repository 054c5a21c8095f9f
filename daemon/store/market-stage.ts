/**
 * A staged copy of the market, so that a load never holds the database's writer for long.
 *
 * A load writes into `stage_<table>` copies of every market table, in transactions that commit
 * on their own, each about a tenth of a second on sqlite (write-pace.ts): no reader looks at
 * those tables, so a half-written stage is invisible. Its last step renames the live tables to `retired_<table>`
 * and the staged ones to the live names, all in one transaction of a few milliseconds: readers
 * see the old market up to that commit and the whole new one after it. A load killed before
 * it leaves the live tables as they were (the next load drops the leftover stage); one killed
 * after it is complete. The retired tables are then emptied in short statements and dropped.
 *
 * Foreign keys stay within a set: the staged children reference the staged `stocks`, and the
 * renames carry the references along (sqlite rewrites them by name, PostgreSQL keeps them by
 * table identity). A load claims the stage in `market_stage` and publishes only while it
 * still owns it: a worker whose job was taken over cannot publish the other run's stage.
 */
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from './db.js';
import { MARKET_TABLES, prefixedTables, type MarketTable, type MarketTableNames } from './market-tables.js';
import { createWritePace } from './write-pace.js';

/** Prefix of the staged tables. */
const STAGE = 'stage_';
/** Prefix of the tables a publish replaced (dropped right after, or by the next load). */
const RETIRED = 'retired_';

/**
 * Stock codes per copy or delete statement on PostgreSQL (50 stocks of 500 days are 25,000 bars).
 * On sqlite, whose one writer every other write waits for, the codes per statement are sized by
 * time instead (write-pace.ts), starting here.
 */
const CODES_PER_STATEMENT = 50;
/** Most codes per statement on sqlite (a short history: many stocks fit the time of one piece). */
const MAX_CODES_PER_STATEMENT = 1_000;

/** The column each table is copied and emptied by (ranges of stock codes); others go in one statement. */
const KEY: Partial<Record<MarketTable, string>> = {
  stocks: 'code', daily_prices: 'stock_code', trading_halts: 'stock_code', financials: 'stock_code',
  financial_reports: 'stock_code', stock_designations: 'stock_code', stock_indicators: 'stock_code',
};

/** Parents first: creating and copying in this order never trips a foreign key. */
const PARENTS_FIRST = [...MARKET_TABLES].reverse();

/** What a load does with the staged market. */
export interface MarketStage {
  /** The staged tables' names (repositories built on them write into the stage). */
  readonly tables: MarketTableNames;
  /**
   * Claim the stage, drop what earlier loads left behind, create the staged tables and, with
   * `copy`, copy the live market into them (in short statements); without, they start empty
   * (a load that replaces the whole market).
   */
  prepare(options: { copy: boolean }): Promise<void>;
  /**
   * Create the staged tables' secondary indexes, if not done yet (sqlite creates them only once
   * the rows are in; call before reading the stage by them, `publish` calls it anyway).
   */
  buildIndexes(): Promise<void>;
  /**
   * Make the stage the live market in one short transaction.
   * @throws Error when another run of the load claimed the stage meanwhile
   */
  publish(): Promise<void>;
  /** Empty and drop the tables the publish replaced (short statements). */
  dropRetired(): Promise<void>;
}

/** Every leftover staged or retired table, grouped by prefix. */
async function leftovers(db: Db): Promise<Map<string, Set<string>>> {
  const rows = db.dialect.name === 'sqlite'
    ? await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
    : await db.all<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()');
  const out = new Map<string, Set<string>>();
  for (const { name } of rows) {
    for (const prefix of [STAGE, RETIRED]) {
      if (!name.startsWith(prefix) || !(MARKET_TABLES as readonly string[]).includes(name.slice(prefix.length))) continue;
      let set = out.get(prefix);
      if (!set) out.set(prefix, (set = new Set()));
      set.add(name);
    }
  }
  return out;
}

/** Every stock code of `stocks`, in order. */
async function codesOf(db: Db, stocks: string): Promise<string[]> {
  return (await db.all<{ code: string }>(`SELECT code FROM ${stocks} ORDER BY code`)).map((r) => r.code);
}

const inRange = (key: string, hi: string | null) => (hi === null ? `${key} >= ?` : `${key} >= ? AND ${key} < ?`);
const rangeParams = (lo: string, hi: string | null) => (hi === null ? [lo] : [lo, hi]);

/**
 * Run `sql` (with a `{range}` placeholder for the range condition on `key`) once per range of
 * stock codes, ranges covering every code (the first open below, the last open above), each in
 * its own transaction; on sqlite the codes per range follow the time the last range took.
 */
async function overCodeRanges(db: Db, codes: readonly string[], sql: string, key: string): Promise<void> {
  const pace = db.dialect.name === 'sqlite' ? createWritePace({ initial: 4, min: 1, max: MAX_CODES_PER_STATEMENT }) : null;
  let lo = '';
  for (let i = 0; ; ) {
    const n = pace ? pace.size() : CODES_PER_STATEMENT;
    const hi = codes[i + n] ?? null;
    let began = 0;
    await db.transaction((tx) => ((began = performance.now()), tx.run(sql.replace('{range}', inRange(key, hi)), rangeParams(lo, hi))));
    pace?.took(n, performance.now() - began);
    if (hi === null) return;
    (i += n), (lo = hi);
  }
}

/** Empty a set of tables in short statements (children first), then drop them. */
async function dropSet(db: Db, tables: MarketTableNames, present: ReadonlySet<string>): Promise<void> {
  const order = MARKET_TABLES.filter((t) => present.has(tables[t]));
  if (db.dialect.name === 'sqlite') {
    // sqlite frees a table row by row when it drops it (one long write): empty it in ranges first.
    const codes = present.has(tables.stocks) ? await codesOf(db, tables.stocks) : null;
    for (const t of order) {
      const key = KEY[t];
      if (key && codes) await overCodeRanges(db, codes, `DELETE FROM ${tables[t]} WHERE {range}`, key);
      await db.run(`DELETE FROM ${tables[t]}`);
    }
  }
  for (const t of order) await db.exec(`DROP TABLE ${tables[t]}`);
}

/**
 * Create `stage` as an empty copy of `live` (columns, keys, checks, indexes; references into the
 * stage). On sqlite its secondary (not unique) indexes are not created: their statements are
 * added to `deferred`, for `buildIndexes` once the rows are in.
 */
async function createLike(db: Db, live: string, stage: string, stageOf: (name: string) => string, deferred: string[]): Promise<void> {
  if (db.dialect.name === 'postgres') {
    await db.exec(`CREATE TABLE ${stage} (LIKE ${live} INCLUDING ALL)`);
    const fks = await db.all<{ name: string; def: string }>(
      "SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = ?::regclass AND contype = 'f'", [live],
    );
    for (const fk of fks) {
      const def = fk.def.replace(/REFERENCES\s+(?:[\w"]+\.)?"?(\w+)"?\(/, (_m, name: string) => `REFERENCES ${stageOf(name)}(`);
      await db.exec(`ALTER TABLE ${stage} ADD CONSTRAINT "${fk.name}" ${def}`);
    }
    return;
  }
  const table = await db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [live]);
  if (!table) throw new Error(`market table ${live} not found`);
  await db.exec(table.sql
    .replace(/^CREATE TABLE\s+"?\w+"?/, `CREATE TABLE "${stage}"`)
    .replace(/REFERENCES\s+"?(\w+)"?/g, (_m, name: string) => `REFERENCES "${stageOf(name)}"`));
  const indexes = await db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [live]);
  for (const index of indexes) {
    // Index names never appear in queries: a fresh one per stage avoids meeting the live table's.
    const name = `${index.name.replace(/_s[0-9a-f]{8}$/, '')}_s${randomUUID().slice(0, 8)}`;
    const unique = /^CREATE UNIQUE /i.test(index.sql);
    const sql = index.sql.replace(/^CREATE (UNIQUE )?INDEX\s+"?\w+"?\s+ON\s+"?\w+"?/i, `CREATE ${unique ? 'UNIQUE ' : ''}INDEX "${name}" ON "${stage}"`);
    // A unique index decides what an upsert replaces, so it is there from the start.
    if (unique) await db.exec(sql);
    else deferred.push(sql);
  }
}

/** Copy `live` into `stage` (ranges of stock codes where the table has one). */
async function copyTable(db: Db, table: MarketTable, live: string, stage: string, codes: readonly string[]): Promise<void> {
  // PostgreSQL's identity column (indicator_runs.id) takes copied values only when told to.
  const overriding = db.dialect.name === 'postgres' && table === 'indicator_runs' ? ' OVERRIDING SYSTEM VALUE' : '';
  const key = KEY[table];
  if (!key) {
    await db.run(`INSERT INTO ${stage}${overriding} SELECT * FROM ${live}`);
    return;
  }
  await overCodeRanges(db, codes, `INSERT INTO ${stage} SELECT * FROM ${live} WHERE {range}`, key);
}

/** Create the stage of the market in `db` (one per load). */
export function createMarketStage(db: Db, live: MarketTableNames): MarketStage {
  const tables = prefixedTables(STAGE);
  const retired = prefixedTables(RETIRED);
  const owner = randomUUID();
  const stageOf = (name: string) => ((MARKET_TABLES as readonly string[]).includes(name) ? tables[name as MarketTable] : name);
  // Secondary indexes of the stage not created yet. On sqlite each piece of a load added entries
  // all along the bars' trade-date index, and every commit wrote those pages again: with the
  // index built once at the end the full sample market's bars went in about twice as fast in
  // pieces of 2,000 rows, and each piece held the writer a third as long.
  const deferred: string[] = [];

  return {
    tables,
    async prepare({ copy }) {
      await db.transaction(async (tx) => {
        await tx.run('DELETE FROM market_stage');
        await tx.run('INSERT INTO market_stage (id, owner, started_at) VALUES (1, ?, ?)', [owner, new Date().toISOString()]);
      });
      const left = await leftovers(db);
      for (const [prefix, present] of left) await dropSet(db, prefixedTables(prefix), present);
      for (const t of PARENTS_FIRST) await createLike(db, live[t], tables[t], stageOf, deferred);
      const codes = copy ? await codesOf(db, live.stocks) : [];
      for (const t of PARENTS_FIRST) {
        // Run ids keep increasing across loads (readers compare them), so the run log is always carried over.
        if (copy || t === 'indicator_runs') await copyTable(db, t, live[t], tables[t], codes);
      }
      if (!copy) await db.run(`DELETE FROM ${tables.indicator_runs}`);
      if (db.dialect.name === 'postgres') {
        await db.get(
          `SELECT setval(pg_get_serial_sequence('${tables.indicator_runs}', 'id'), COALESCE((SELECT MAX(id) FROM ${live.indicator_runs}), 0) + 1, false)`,
        );
      }
    },
    async buildIndexes() {
      while (deferred.length > 0) {
        await db.exec(deferred[0] as string);
        deferred.shift();
      }
    },
    async publish() {
      await this.buildIndexes();
      await db.transaction(async (tx) => {
        await claimed(tx, owner);
        for (const t of MARKET_TABLES) await tx.exec(`ALTER TABLE ${live[t]} RENAME TO ${retired[t]}`);
        for (const t of PARENTS_FIRST) await tx.exec(`ALTER TABLE ${tables[t]} RENAME TO ${live[t]}`);
        await tx.run('DELETE FROM market_stage');
      });
    },
    async dropRetired() {
      const left = await leftovers(db);
      const present = left.get(RETIRED);
      if (present) await dropSet(db, retired, present);
    },
  };
}

/** @throws Error when the stage is not `owner`'s any more */
async function claimed(tx: Queryable, owner: string): Promise<void> {
  const row = await tx.get<{ owner: string }>('SELECT owner FROM market_stage WHERE id = 1');
  if (row?.owner !== owner) throw new Error('another run of this load took over its staged market; this run stops without publishing');
}
