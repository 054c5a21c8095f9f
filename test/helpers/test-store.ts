/**
 * The storage backend of this test pass: sqlite (a temp file, the default) or
 * PostgreSQL (the `postgres` vitest project sets STOCKSCREEN_TEST_DB=postgres; each
 * store gets its own schema in the run's database). Daemons and harnesses that must
 * share one database pass the same StoreSettings.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { Db } from '../../daemon/store/db.js';
import { openStore, type StoreSettings } from '../../daemon/store/open.js';

/** The backend this pass runs against. */
export function testBackend(): 'sqlite' | 'postgres' {
  return process.env.STOCKSCREEN_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

/** Settings for a fresh, empty store (a new temp dir; on PostgreSQL also a new schema). */
export async function freshStoreSettings(label: string): Promise<StoreSettings & { data_dir: string }> {
  const data_dir = await mkdtemp(join(tmpdir(), `stockscreen-${label}-`));
  if (testBackend() === 'sqlite') return { data_dir };
  const url = inject('postgresUrl');
  if (!url) throw new Error('the postgres test pass needs a PostgreSQL server (see test/helpers/postgres-setup.ts)');
  const schema = `t_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  return { data_dir, database_url: url, database_schema: schema, database_pool_size: 5 };
}

/** An open, migrated test store. */
export interface TestDb {
  db: Db;
  settings: StoreSettings & { data_dir: string };
  /** Closes the handle and removes the temp dir (the run's database is dropped at the end of the run). */
  close(): Promise<void>;
}

/** Open a fresh migrated store, or another handle on `share`'s database. */
export async function openTestDb(label: string, share?: StoreSettings & { data_dir: string }): Promise<TestDb> {
  const settings = share ?? (await freshStoreSettings(label));
  const db = await openStore(settings);
  return {
    db,
    settings,
    async close() {
      await db.close();
      if (!share) await rm(settings.data_dir, { recursive: true, force: true });
    },
  };
}
