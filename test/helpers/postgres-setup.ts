/**
 * Vitest global setup of the `postgres` project: creates one database for this run on
 * the PostgreSQL server (STOCKSCREEN_TEST_PG_URL, default postgres://127.0.0.1:5432/postgres
 * as the current OS user) and drops it afterwards. Each test daemon or harness works in
 * its own schema inside it (see test-store.ts), so runs and files never see each other.
 */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string | null;
  }
}

/** The server the postgres pass uses (its `postgres` database is only used to create and drop ours). */
export const TEST_PG_ADMIN_URL = process.env.STOCKSCREEN_TEST_PG_URL ?? `postgres://${encodeURIComponent(process.env.PGUSER ?? userInfo().username)}@127.0.0.1:5432/postgres`;

export default async function setup(project: TestProject) {
  const name = `stockscreen_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    const where = TEST_PG_ADMIN_URL.replace(/:[^:@/]*@/, ':***@');
    throw new Error(`the postgres test pass could not create its database on ${where}: ${(err as Error).message}. ` +
      'Point STOCKSCREEN_TEST_PG_URL at a server where this user may CREATE DATABASE, or run only the sqlite pass with STOCKSCREEN_TEST_BACKENDS=sqlite.');
  } finally {
    await admin.end().catch(() => undefined);
  }
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  project.provide('postgresUrl', url.toString());
  return async () => {
    const drop = new pg.Client({ connectionString: TEST_PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
    await drop.connect();
    await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await drop.end();
  };
}
