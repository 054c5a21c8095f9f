/**
 * Migration 013 (alerts on screens) on a database that already holds price alerts and
 * firings: they come through unchanged and keep working; the new columns and the widened
 * unique key behave as the screen alerts need. Migration 024 (membership and dwell) leaves
 * the screen alerts made before it counting the page at once, as they did.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Db } from '../../../daemon/store/db.js';
import { createAlertsRepo } from '../../../daemon/store/alerts-repo.js';
import { migrate, MIGRATIONS } from '../../../daemon/store/migrations/index.js';
import { openPostgres } from '../../../daemon/store/postgres.js';
import { openSqlite } from '../../../daemon/store/sqlite.js';
import { freshStoreSettings } from '../../helpers/test-store.js';

let db: Db | undefined;
let dir = '';
afterEach(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

async function openUnmigrated(): Promise<Db> {
  const s = await freshStoreSettings('migration-013');
  dir = s.data_dir;
  return s.database_url ? openPostgres({ url: s.database_url, schema: s.database_schema, poolSize: 2 }) : openSqlite(join(s.data_dir, 'stockscreen.db'));
}

it('keeps price alerts and their history through migration 013, and takes screen alerts after it', async () => {
  db = await openUnmigrated();
  await migrate(db, MIGRATIONS.filter((m) => m.id < 13));
  const now = new Date().toISOString();
  await db.run('INSERT INTO users (id, email, name, password_hash, tier, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', ['u1', 'a@example.com', null, 'x', 'free', 'user', now, now]);
  await db.run(
    'INSERT INTO alerts (id, user_id, stock_code, alert_type, threshold, recurring, cooldown_s, note, fire_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ['a1', 'u1', '005930', 'price_above', 71000, 1, 60, 'n', 1, now, now],
  );
  await db.run(
    'INSERT INTO alert_events (id, alert_id, user_id, generation, stock_code, alert_type, threshold, price, change_percent, volume, message, fired_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ['e1', 'a1', 'u1', 0, '005930', 'price_above', 71000, 71100, 1.5, 10, 'fired', 1000],
  );
  expect(await migrate(db, MIGRATIONS.filter((m) => m.id <= 13))).toEqual([13]);
  // A screen alert made before membership and dwell existed keeps counting the page at once.
  await db.run('INSERT INTO screen_presets (id, user_id, name, description, query_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', ['p0', 'u1', 'old', null, '{}', now, now]);
  await db.run("INSERT INTO alerts (id, user_id, preset_id, alert_type, created_at, updated_at) VALUES ('s0', 'u1', 'p0', 'screen_enter', ?, ?)", [now, now]);
  await migrate(db, MIGRATIONS.filter((m) => m.id <= 24));
  const repo = createAlertsRepo(db);
  expect(await repo.getById('s0')).toMatchObject({ preset_id: 'p0', membership: 'page', dwell_s: 0 });
  expect(await repo.getById('a1')).toMatchObject({ code: '005930', preset_id: null, alert_type: 'price_above', threshold: 71000, recurring: true, cooldown_s: 60, fire_count: 1, membership: null, dwell_s: null });
  expect((await repo.events('u1', { limit: 10, offset: 0 })).items).toEqual([expect.objectContaining({ id: 'e1', code: '005930', preset_id: null, threshold: 71000, claim: '', generation: 0 })]);
  // The price alert's next generation records once; its first cannot be recorded again.
  const firing = { alert_id: 'a1', user_id: 'u1', code: '005930', preset_id: null, alert_type: 'price_above' as const, threshold: 71000, price: 72000, change_percent: 2, volume: 20, message: 'again', fired_at: 2000, claim: '' };
  expect(await repo.recordFiring({ ...firing, id: 'e2', generation: 0 })).toBe(false);
  expect(await repo.recordFiring({ ...firing, id: 'e3', generation: 1 })).toBe(true);
  // A screen alert: a preset, no stock, no threshold; a stock neither a preset nor both is refused.
  await db.run('INSERT INTO screen_presets (id, user_id, name, description, query_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', ['p1', 'u1', 'top', null, '{}', now, now]);
  const made = await repo.create('u1', { code: null, preset_id: 'p1', alert_type: 'screen_enter', threshold: null, recurring: true, cooldown_s: 0, note: null, membership: 'conditions', dwell_s: 30 }, 3);
  expect(made.ok && made.alert).toMatchObject({ code: null, preset_id: 'p1', threshold: null, name: null, membership: 'conditions', dwell_s: 30 });
  // The cap counts price and screen alerts together.
  expect(await repo.create('u1', { code: null, preset_id: 'p1', alert_type: 'screen_exit', threshold: null, recurring: false, cooldown_s: 0, note: null, membership: 'page', dwell_s: 0 }, 3)).toMatchObject({ ok: false, reason: 'cap' });
  await expect(db.run("INSERT INTO alerts (id, user_id, alert_type, created_at, updated_at) VALUES ('bad', 'u1', 'screen_enter', 'x', 'x')")).rejects.toThrow();
  // Deleting the preset deletes its alerts.
  await db.run('DELETE FROM screen_presets WHERE id = ?', ['p1']);
  expect(made.ok && (await repo.getById(made.alert.id))).toBeUndefined();
});
