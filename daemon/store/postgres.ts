/**
 * The PostgreSQL backend (`--database-url postgres://…`): a `pg` connection pool,
 * named prepared statements for the repositories' fixed SQL, `?` placeholders turned
 * into `$n`, and SERIALIZABLE transactions retried on serialisation failures so that
 * read-check-write transactions (alert caps, exactly-once firings, holding merges)
 * keep the guarantees they have on sqlite's single writer.
 */
import { userInfo } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { isUniqueViolation, type Db, type Dialect, type Params, type Queryable } from './db.js';

/** PostgreSQL's SQL fragments (see Dialect). */
export const POSTGRES_DIALECT: Dialect = {
  name: 'postgres',
  jsonRows: 'json_array_elements(?::json)',
  // An array parameter lets the planner see the list's length and use the primary key
  // (measured: 11 ms vs 44 ms for 25 codes of 500 × 500 bars; a json row source made it
  // scan the whole table).
  inTextList: (column) => `${column} = ANY(?::text[])`,
  textList: (values) => [...values],
  insertionOrder: 'seq',
  greatest: 'GREATEST',
  // Several daemons may start at once against one database: one migrates, the others wait.
  migrationLock: "SELECT pg_advisory_xact_lock(hashtext('stockscreen:migrations'))",
};

/** Options of openPostgres. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Schema for every table (created when missing); default: the server's search_path (usually `public`). */
  schema?: string;
  /** Most connections the pool opens (default 10). */
  poolSize?: number;
  /** Longest wait for a pooled connection (ms, default 5000): then the request answers 503. */
  waitMs?: number;
  /** Called with errors of idle pooled connections (a restarted server, say); they are replaced on next use. */
  onIdleError?(err: Error): void;
}

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;
const SERIALIZATION_FAILURE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 20;
/** Statements with more parameters than this are bulk writes of varying shape: not worth preparing. */
const MAX_PREPARED_PARAMS = 100;
const MAX_PREPARED = 500;

// bigint (COUNT(*), BIGINT columns) and numeric (SUM, AVG) as JS numbers: every value we store fits 2^53.
const NUMERIC_OIDS = new Set([20, 1700]);
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    NUMERIC_OIDS.has(oid) ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** `?` → `$1, $2, …`, leaving quoted strings and identifiers alone. */
export function toPositional(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

/** The URL without its password, for logs and health output. */
export function postgresLabel(url: string, schema?: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `${u.protocol}//${user}${u.host}${u.pathname}${schema ? ` (schema ${schema})` : ''}`;
  } catch {
    return 'postgres (unparsable URL)';
  }
}

type Client = pg.Pool | pg.PoolClient;

/** Like psql: a URL without a user connects as PGUSER, else as the OS user. */
function withDefaultUser(url: string): string {
  try {
    const u = new URL(url);
    if (u.username) return url;
    u.username = encodeURIComponent(process.env.PGUSER ?? userInfo().username);
    return u.toString();
  } catch {
    return url; // pg reports the unparsable URL itself
  }
}

/**
 * A query function that rewrites `?` placeholders once per statement and names the first
 * MAX_PREPARED statements (small enough parameter lists), so the server prepares them once per
 * connection.
 */
function createPreparedQuery(): (client: Client, sql: string, params: Params) => Promise<pg.QueryResult> {
  const texts = new Map<string, string>();
  const names = new Map<string, string>();
  return (client, sql, params) => {
    let text = texts.get(sql);
    if (text === undefined) {
      text = toPositional(sql);
      if (texts.size < 4 * MAX_PREPARED) texts.set(sql, text);
    }
    let name = names.get(text);
    if (name === undefined && params.length <= MAX_PREPARED_PARAMS && names.size < MAX_PREPARED) names.set(text, (name = `s${names.size + 1}`));
    const values = params as unknown[];
    return client.query(name ? { name, text, values } : { text, values });
  };
}

/**
 * Open a pool on `url` and check that the server answers.
 * @throws Error when the URL or schema name is invalid or the server cannot be reached
 */
export async function openPostgres(options: PostgresOptions): Promise<Db> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_RE.test(schema)) throw new Error(`invalid PostgreSQL schema name ${JSON.stringify(schema)} (lower-case letters, digits and _)`);
  const pool = new pg.Pool({
    connectionString: withDefaultUser(options.url),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.waitMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    application_name: 'stockscreend',
    types,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', (err) => options.onIdleError?.(err));

  const query = createPreparedQuery();
  const runner = (client: Client): Queryable => ({
    dialect: POSTGRES_DIALECT,
    run: async (sql, params = []) => ({ changes: (await query(client, sql, params)).rowCount ?? 0 }),
    get: async <T>(sql: string, params: Params = []) => (await query(client, sql, params)).rows[0] as T | undefined,
    all: async <T>(sql: string, params: Params = []) => (await query(client, sql, params)).rows as T[],
    exec: async (sql) => {
      await client.query(sql);
    },
  });

  try {
    // IF NOT EXISTS still races with a process creating it at the same moment: that one won.
    if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((err: unknown) => {
      if (!isUniqueViolation(err)) throw err;
    });
    else await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }

  let closed: Promise<void> | undefined;
  return {
    ...runner(pool),
    label: postgresLabel(options.url, schema),
    async ping() {
      await pool.query('SELECT 1');
    },
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        for (let attempt = 1; ; attempt++) {
          await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
          try {
            const result = await fn(runner(client));
            await client.query('COMMIT');
            return result;
          } catch (err) {
            await client.query('ROLLBACK').catch((e: Error) => (broken = e));
            const code = (err as { code?: string }).code;
            if (broken || !code || !SERIALIZATION_FAILURE.has(code) || attempt >= MAX_ATTEMPTS) throw err;
            // Another transaction won the race: run again on the data it committed, after a
            // short random pause (full jitter, capped) so that the losers do not collide again.
            await delay(Math.random() * Math.min(50, 2 ** attempt));
          }
        }
      } finally {
        client.release(broken);
      }
    },
    close() {
      closed ??= pool.end();
      return closed;
    },
  };
}
