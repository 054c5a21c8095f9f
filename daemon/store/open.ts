/**
 * Open the configured store and bring its schema up to date: PostgreSQL when
 * `database_url` is set (several daemons and workers share it), otherwise the sqlite
 * file `stockscreen.db` in `data_dir` (one machine).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from './db.js';
import { migrate } from './migrations/index.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';

/** The settings openStore reads. */
export interface StoreSettings {
  data_dir: string;
  database_url?: string | undefined;
  database_schema?: string | undefined;
  database_pool_size?: number;
  /** Longest wait for the writer (sqlite) or a connection (PostgreSQL), default 5 s; then a 503. */
  database_wait_ms?: number;
}

/**
 * Open and migrate the store.
 * @throws the driver's error when the database cannot be opened or a migration fails
 */
export async function openStore(settings: StoreSettings, onIdleError?: (err: Error) => void): Promise<Db> {
  let db: Db;
  if (settings.database_url) {
    db = await openPostgres({ url: settings.database_url, schema: settings.database_schema, poolSize: settings.database_pool_size, waitMs: settings.database_wait_ms, onIdleError });
  } else {
    await mkdir(settings.data_dir, { recursive: true, mode: 0o700 });
    db = await openSqlite(join(settings.data_dir, 'stockscreen.db'), { waitMs: settings.database_wait_ms });
  }
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}
