/**
 * The storage contract every backend implements (sqlite for one machine, PostgreSQL
 * for several): statements with `?` placeholders, transactions, and the few SQL
 * fragments in which the two engines differ. Repositories depend on this, never on
 * a driver.
 */

/** Positional bind parameters (`?` in the SQL text). */
export type Params = readonly unknown[];

/** Result of a write statement. */
export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/** SQL fragments that differ between engines. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * A row source over one JSON-array parameter (`?`), one row per element in a column
   * named `value`; array elements are read with `value->>0`, `value->>1`, …
   */
  readonly jsonRows: string;
  /** `<column>` is one of a list of strings bound as one parameter, made by `textList`. */
  inTextList(column: string): string;
  /** The bound value for inTextList's placeholder. */
  textList(values: readonly string[]): unknown;
  /** A column that increases with insertion order (tie-breaker in listings). */
  readonly insertionOrder: string;
  /** The scalar "larger of two values" function. */
  readonly greatest: string;
  /** A statement that serialises schema migrations between processes (inside their transaction), if needed. */
  readonly migrationLock: string | null;
}

/** Statement runner shared by the database handle and a transaction. */
export interface Queryable {
  readonly dialect: Dialect;
  run(sql: string, params?: Params): Promise<RunResult>;
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  /** Runs one or more statements without parameters (DDL). */
  exec(sql: string): Promise<void>;
}

/** The application's database. */
export interface Db extends Queryable {
  /**
   * Runs `fn` in one transaction; commits when it resolves, rolls back when it throws.
   * Transactions behave as if run one after another (sqlite: one writer; PostgreSQL:
   * SERIALIZABLE, retried on a serialisation failure), so `fn` may run more than once
   * and must only touch the database.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Resolves when the database answers a trivial query (health checks).
   * @throws the driver's error when it cannot be reached
   */
  ping(): Promise<void>;
  /** Closes every connection (sqlite: checkpoints the WAL first). Idempotent. */
  close(): Promise<void>;
  /** Where the data lives, safe to log: a file path or `postgres://user@host:port/db` without the password. */
  readonly label: string;
}

/** True when `err` is a unique-constraint violation from either engine. */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if ((err as { code?: unknown }).code === '23505') return true;
  return /SQLITE_CONSTRAINT.*UNIQUE|UNIQUE constraint failed/.test(err.message);
}

const PG_UNAVAILABLE = /^(08|57P0[123]|53300)/; // connection exceptions, shutdowns, too many connections
const NET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR']);

/**
 * True when `err` says the database cannot be reached right now (server down or
 * restarting, connection lost, pool timeout, sqlite locked past busy_timeout): the
 * request may succeed later, so the edges answer 503 rather than a masked 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (NET_UNAVAILABLE.has(code) || PG_UNAVAILABLE.test(code))) return true;
  return /timeout exceeded when trying to connect|Connection terminated|connection is closed|Client has encountered a connection error/i.test(err.message);
}

/**
 * A Db whose statements run in the open transaction `tx` and whose `transaction(fn)` runs
 * `fn` inside it (no new transaction): repositories built on it take part in one
 * all-or-nothing unit of work (a whole load job). Closing it does nothing.
 */
export function transactionDb(tx: Queryable, label: string): Db {
  // One connection runs one statement at a time: callers reading in parallel (Promise.all) take turns.
  let tail: Promise<unknown> = Promise.resolve();
  const turn = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn, fn);
    tail = next.catch(() => undefined);
    return next;
  };
  const db: Db = {
    dialect: tx.dialect,
    label,
    run: (sql, params) => turn(() => tx.run(sql, params)),
    get: <T>(sql: string, params?: Params) => turn(() => tx.get<T>(sql, params)),
    all: <T>(sql: string, params?: Params) => turn(() => tx.all<T>(sql, params)),
    exec: (sql) => turn(() => tx.exec(sql)),
    transaction: (fn) => fn(db),
    ping: async () => void (await tx.get('SELECT 1')),
    close: async () => undefined,
  };
  return db;
}

/**
 * A Db for writes into tables no reader looks at (a staged market): each outermost
 * `transaction(fn)` is a real, short transaction, and transactions nested in it run inside it
 * (no savepoints), so a unit of work commits as a few small transactions instead of holding
 * the writer for its whole length. Statements outside any transaction commit on their own.
 */
export function batchCommitDb(db: Db): Db {
  const self: Db = {
    dialect: db.dialect,
    label: db.label,
    run: (sql, params) => db.run(sql, params),
    get: (sql, params) => db.get(sql, params),
    all: (sql, params) => db.all(sql, params),
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction((tx) => fn(transactionDb(tx, db.label))),
    ping: () => db.ping(),
    close: async () => undefined,
  };
  return self;
}

/** Like batchCommitDb, but even `transaction(fn)` commits statement by statement. */
export function autocommitDb(db: Db): Db {
  const self: Db = { ...batchCommitDb(db), transaction: (fn) => fn(self) };
  return self;
}
