/**
 * The backtest runs repository on each storage backend: the state machine that lets
 * several daemons' workers and the owner write one row without overwriting each other, the caps
 * checked with the insert, and the migration from the heartbeat table (014).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BacktestResult } from '../../../daemon/contract/backtests.js';
import { createBacktestsRepo, type BacktestsRepo } from '../../../daemon/store/backtests-repo.js';
import { migrate, MIGRATIONS } from '../../../daemon/store/migrations/index.js';
import { openPostgres } from '../../../daemon/store/postgres.js';
import { openSqlite } from '../../../daemon/store/sqlite.js';
import { freshStoreSettings, openTestDb, type TestDb } from '../../helpers/test-store.js';

/** A completed run's result (nothing held: no stats). */
const RESULT: BacktestResult = {
  from: '2025-01-02', to: '2025-02-03', stats: null, message: 'the screen selected no stock on any date', curve: [], rebalances: [], trades: [],
  rules: { rebalance: 'monthly', top: 20, weighting: 'equal', fee_bps: 1.5, tax_bps: 20, slippage_bps: 0, benchmark: 'KOSPI', capital: 100_000_000, risk_free_rate: 0.03 },
};
const ids = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);

describe('backtests repository', () => {
  let t: TestDb;
  let repo: BacktestsRepo;
  beforeEach(async () => {
    t = await openTestDb('bt-repo');
    for (const u of ['u1', 'u2']) {
      await t.db.run('INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [u, `${u}@example.com`, 'h', '2026-01-01', '2026-01-01']);
    }
    repo = createBacktestsRepo(t.db);
  });
  afterEach(() => t.close());

  it('moves a run queued → running → completed, and resets its progress when another worker takes it over', async () => {
    await repo.create('u1', ids[0]!, { template: 'value' }, 10, 'queued');
    expect(await repo.get('u1', ids[0]!)).toMatchObject({ status: 'queued', done: 0, total: 10 });
    expect(await repo.claim(ids[0]!)).toBe(true);
    expect(await repo.progress(ids[0]!, 4, 10)).toBe(true);
    // Its daemon stops: back to the queue; the next worker starts from 0.
    await repo.requeue(ids[0]!);
    expect(await repo.get('u1', ids[0]!)).toMatchObject({ status: 'queued', done: 0 });
    expect(await repo.claim(ids[0]!)).toBe(true);
    await repo.finish(ids[0]!, { result: RESULT });
    expect(await repo.get('u1', ids[0]!)).toMatchObject({ status: 'completed', done: 10, result: RESULT });
    // Ended: nothing takes it again, nor fails it afterwards.
    expect(await repo.claim(ids[0]!)).toBe(false);
    await repo.finish(ids[0]!, { error: 'late' });
    expect((await repo.get('u1', ids[0]!))?.status).toBe('completed');
  });

  it('keeps a cancelled run cancelled whatever its worker does next, and lets only its owner cancel', async () => {
    await repo.create('u1', ids[1]!, {}, 10, 'running');
    expect(await repo.cancel('u2', ids[1]!)).toBe(false);
    expect(await repo.cancel('u1', ids[1]!)).toBe(true);
    expect(await repo.progress(ids[1]!, 5, 10)).toBe(false);
    await repo.finish(ids[1]!, { result: RESULT });
    await repo.requeue(ids[1]!);
    expect(await repo.claim(ids[1]!)).toBe(false);
    expect(await repo.get('u1', ids[1]!)).toMatchObject({ status: 'cancelled', result: null });
    expect(await repo.cancel('u1', ids[1]!)).toBe(false);
  });

  it('refuses a run over the owner\'s cap or the queue\'s, saying how many there are', async () => {
    const caps = { perUser: 2, queued: 3 };
    expect(await repo.create('u1', ids[0]!, {}, 10, 'queued', caps)).toEqual({ ok: true });
    expect(await repo.create('u1', ids[1]!, {}, 3, 'running', caps)).toEqual({ ok: true });
    expect(await repo.create('u1', ids[2]!, {}, 3, 'running', caps)).toEqual({ ok: false, reason: 'user', active: 2 });
    await repo.finish(ids[1]!, { result: RESULT });
    expect(await repo.create('u1', ids[2]!, {}, 10, 'queued', caps)).toEqual({ ok: true });
    expect(await repo.create('u2', ids[3]!, {}, 10, 'queued', caps)).toEqual({ ok: true });
    expect(await repo.create('u2', ids[4]!, {}, 10, 'queued', caps)).toEqual({ ok: false, reason: 'queue', queued: 3 });
    // A direct run is not queued: the queue's cap does not apply to it.
    expect(await repo.create('u2', ids[4]!, {}, 3, 'running', caps)).toEqual({ ok: true });
    expect((await repo.list('u1', 10)).map((r) => r.status).sort()).toEqual(['completed', 'queued', 'queued']);
  });

  it('keeps the runs stored before migration 014, and accepts the new states after it', async () => {
    // Given a store migrated up to 012 holding a run with a heartbeat
    const settings = await freshStoreSettings('bt-migrate');
    const db = settings.database_url
      ? await openPostgres({ url: settings.database_url, schema: settings.database_schema, poolSize: 2 })
      : await openSqlite(join(settings.data_dir, 'stockscreen.db'));
    try {
      await migrate(db, MIGRATIONS.filter((m) => m.id <= 12));
      await db.run('INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', ['u1', 'u1@example.com', 'h', '2026-01-01', '2026-01-01']);
      await db.run("INSERT INTO backtests (id, user_id, status, done, total, request_json, result_json, created_at, finished_at, heartbeat_at) VALUES (?, 'u1', 'completed', 8, 8, '{\"template\":\"value\"}', '{\"curve\":[]}', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', '2026-01-01T00:00:30Z')", [ids[0]]);
      // When the rest is applied
      expect(await migrate(db)).toContain(14);
      // Then the run is as it was, and a run may now be queued
      const old = createBacktestsRepo(db);
      expect(await old.get('u1', ids[0]!)).toMatchObject({ status: 'completed', done: 8, request: { template: 'value' }, result: { curve: [] } });
      expect(await old.create('u1', ids[1]!, {}, 10, 'queued')).toEqual({ ok: true });
      expect(await old.cancel('u1', ids[1]!)).toBe(true);
    } finally {
      await db.close();
      await rm(settings.data_dir, { recursive: true, force: true });
    }
  });
});
