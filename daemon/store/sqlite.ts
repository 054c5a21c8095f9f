/**
 * The sqlite3 handle: one writer connection (all writes and transactions, serialised
 * by an async mutex so concurrent requests never interleave inside a transaction) and
 * one reader connection (WAL lets it read committed data while a write is under way).
 */
import sqlite3 from 'sqlite3';
import type { Db, Dialect, Params, Queryable } from './db.js';
import { ensurePrivateFile } from './private-files.js';

/** sqlite's SQL fragments (see Dialect). */
export const SQLITE_DIALECT: Dialect = {
  name: 'sqlite',
  jsonRows: 'json_each(?)',
  inTextList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  textList: (values) => JSON.stringify(values),
  insertionOrder: 'rowid',
  greatest: 'MAX',
  migrationLock: null,
};

function open(file: string, mode: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(db)));
  });
}

function runner(db: sqlite3.Database): Queryable {
  return {
    dialect: SQLITE_DIALECT,
    run: (sql, params = []) =>
      new Promise((resolve, reject) => {
        db.run(sql, params as unknown[], function (this: sqlite3.RunResult, err: Error | null) {
          if (err) reject(err);
          else resolve({ changes: this.changes });
        });
      }),
    get: <T>(sql: string, params: Params = []) =>
      new Promise<T | undefined>((resolve, reject) => {
        db.get(sql, params as unknown[], (err: Error | null, row: T) => (err ? reject(err) : resolve(row)));
      }),
    all: <T>(sql: string, params: Params = []) =>
      new Promise<T[]>((resolve, reject) => {
        db.all(sql, params as unknown[], (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)));
      }),
    exec: (sql) =>
      new Promise((resolve, reject) => {
        db.exec(sql, (err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** The error of a wait for the writer that ran out: the edges answer it with 503 and Retry-After. */
function busyError(waitMs: number): Error {
  return Object.assign(new Error(`database busy: no turn at the writer within ${waitMs} ms`), { code: 'SQLITE_BUSY' });
}

/**
 * A FIFO async mutex. A caller that has not had its turn within `waitMs` gets SQLITE_BUSY
 * (and gives up its place in the queue) rather than waiting without end.
 */
function createMutex(waitMs: number) {
  let tail: Promise<void> = Promise.resolve();
  return async function lock<T>(fn: () => Promise<T>, wait = waitMs): Promise<T> {
    const previous = tail;
    let release!: () => void;
    tail = new Promise<void>((r) => (release = r));
    let gaveUp = false;
    let timer: NodeJS.Timeout | undefined;
    const turn = previous.then(() => {
      clearTimeout(timer);
      if (gaveUp) release();
    });
    if (Number.isFinite(wait)) {
      await Promise.race([turn, new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          gaveUp = true;
          reject(busyError(wait));
        }, wait);
      })]);
    } else {
      await turn;
    }
    try {
      return await fn();
    } finally {
      release();
    }
  };
}

/**
 * Page cache of the writer connection (KiB; it grows only as pages are used). sqlite's default
 * (2 MiB) holds a few hundred pages, while a write of many stocks' bars touches pages all along the
 * bars' trade-date index (a full market's is ~35 MB) and reads most of them again at every commit:
 * the full sample market's bars in 25,000-bar transactions went in about 2.5 times as fast with
 * 64 MiB. Building an index sorts in this memory too before it spills to temporary files.
 */
const WRITER_CACHE_KIB = 65_536;

const pragmas = (waitMs: number) =>
  `PRAGMA busy_timeout = ${waitMs}; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -${WRITER_CACHE_KIB};`;

/** How often switching a new file to WAL is tried while other processes hold it. */
const WAL_ATTEMPTS = 50;

/**
 * Switch the file to WAL. Several processes opening a new file at once contend for the
 * exclusive lock this needs, and sqlite answers SQLITE_BUSY without calling the busy
 * handler (waiting could deadlock), so we retry with a growing pause instead.
 * @throws the driver's error when it is not SQLITE_BUSY, or after WAL_ATTEMPTS tries
 */
async function enableWal(conn: Queryable): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await conn.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || attempt >= WAL_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 5 * attempt));
    }
  }
}

/** Options of openSqlite. */
export interface SqliteOptions {
  /**
   * Longest wait (ms, default 5000) for the writer, whether another transaction of this process
   * or another process holds it: then the statement fails with SQLITE_BUSY (a 503 at the edges).
   */
  waitMs?: number;
}

/**
 * Open (creating if needed) the sqlite file with WAL, busy_timeout and foreign keys on.
 * @throws the driver's error when the file cannot be opened
 */
export async function openSqlite(file: string, options: SqliteOptions = {}): Promise<Db> {
  const waitMs = options.waitMs ?? 5000;
  // 0600 before sqlite creates it: its -wal and -shm files then get the same mode.
  await ensurePrivateFile(file, ['-wal', '-shm', '-journal'].map((s) => file + s));
  const writerDb = await open(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
  const writer = runner(writerDb);
  await writer.exec(pragmas(waitMs));
  await enableWal(writer);
  const readerDb = await open(file, sqlite3.OPEN_READONLY);
  const reader = runner(readerDb);
  await reader.exec(`PRAGMA busy_timeout = ${waitMs}; PRAGMA foreign_keys = ON;`);
  const lock = createMutex(waitMs);
  let closed: Promise<void> | undefined;

  return {
    dialect: SQLITE_DIALECT,
    label: file,
    run: (sql, params) => lock(() => writer.run(sql, params)),
    exec: (sql) => lock(() => writer.exec(sql)),
    get: (sql, params) => reader.get(sql, params),
    ping: async () => void (await reader.get('SELECT 1')),
    all: (sql, params) => reader.all(sql, params),
    transaction: (fn) =>
      lock(async () => {
        await writer.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(writer);
          await writer.exec('COMMIT');
          return result;
        } catch (err) {
          await writer.exec('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    close() {
      // Closing waits for whatever holds the writer, however long.
      closed ??= lock(async () => {
        await writer.exec('PRAGMA wal_checkpoint(TRUNCATE)').catch(() => undefined);
        await new Promise<void>((r) => readerDb.close(() => r()));
        await new Promise<void>((r) => writerDb.close(() => r()));
      }, Infinity);
      return closed;
    },
  };
}
