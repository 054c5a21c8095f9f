/**
 * Numbered schema migrations, applied in order at start inside one transaction each,
 * with one SQL text per engine (same tables, columns and constraints; the types and
 * keys each engine spells its own way). Append new migrations; never edit one that
 * has shipped.
 */
import type { Db } from '../db.js';
import { m001Users } from './001-users.js';
import { m002MarketData } from './002-market-data.js';
import { m003Presets } from './003-presets.js';
import { m004PortfolioAlerts } from './004-portfolio-alerts.js';
import { m005SharedSecrets } from './005-shared-secrets.js';
import { m006FinancialReports } from './006-financial-reports.js';
import { m007LoadtestExemption } from './007-loadtest-exemption.js';
import { m008MarketContent } from './008-market-content.js';
import { m011DisclosureDates } from './011-disclosure-dates.js';
import { m012Backtests } from './012-backtests.js';
import { m013ScreenAlerts } from './013-screen-alerts.js';
import { m014BacktestQueue } from './014-backtest-queue.js';
import { m015Designations } from './015-designations.js';
import { m016MarketStage } from './016-market-stage.js';
import { m024ScreenAlertMembership } from './024-screen-alert-membership.js';
import { m032SourceDates } from './032-source-dates.js';
import { m044Notifications } from './044-notifications.js';
import { m054BacktestPhase } from './054-backtest-phase.js';

/** One schema change. */
export interface Migration {
  id: number;
  name: string;
  sqlite: string;
  postgres: string;
}

/** Every migration, in order. */
export const MIGRATIONS: readonly Migration[] = [m001Users, m002MarketData, m003Presets, m004PortfolioAlerts, m005SharedSecrets, m006FinancialReports, m007LoadtestExemption, m008MarketContent, m011DisclosureDates, m012Backtests, m013ScreenAlerts, m014BacktestQueue, m015Designations, m016MarketStage, m024ScreenAlertMembership, m032SourceDates, m044Notifications, m054BacktestPhase];

/**
 * Apply the migrations that have not run yet.
 * @throws the driver's error; the failing migration is rolled back whole
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  // Several processes may migrate one PostgreSQL database at once. The advisory lock makes
  // them take turns, but a SERIALIZABLE transaction's snapshot predates the wait, so the
  // one that waited may still try what the other just committed and fail on it: if the
  // work is there afterwards, it was done.
  const isApplied = async (id: number) => (await db.get('SELECT id FROM schema_migrations WHERE id = ?', [id]).catch(() => undefined)) !== undefined;
  const tableExists = async () => (await db.get('SELECT COUNT(*) AS n FROM schema_migrations').catch(() => undefined)) !== undefined;
  try {
    await db.transaction(async (tx) => {
      if (tx.dialect.migrationLock) await tx.get(tx.dialect.migrationLock);
      await tx.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    });
  } catch (err) {
    if (!(await tableExists())) throw err;
  }
  const applied: number[] = [];
  for (const m of migrations) {
    if (await isApplied(m.id)) continue;
    try {
      const ran = await db.transaction(async (tx) => {
        if (tx.dialect.migrationLock) await tx.get(tx.dialect.migrationLock);
        if (await tx.get('SELECT id FROM schema_migrations WHERE id = ?', [m.id])) return false;
        await tx.exec(tx.dialect.name === 'postgres' ? m.postgres : m.sqlite);
        await tx.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)', [m.id, m.name, new Date().toISOString()]);
        return true;
      });
      if (ran) applied.push(m.id);
    } catch (err) {
      if (!(await isApplied(m.id))) throw err;
    }
  }
  return applied;
}
