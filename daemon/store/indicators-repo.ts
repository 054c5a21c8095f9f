/** Computed indicator values per stock (the input of the screening snapshot). */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Db, Queryable } from './db.js';
import { LIVE_TABLES, type MarketTableNames } from './market-tables.js';
import { keysetPages } from './keyset-pages.js';

/**
 * Longest stretch of JSON work (ms) before giving the event loop a turn: a full
 * market is ~2,700 rows of ~100 values, ~40 ms of parsing or serialising in one go
 * (the daemon must not block for more than a few milliseconds at a time).
 */
const SLICE_MS = 4;

/** Indicator values of one stock. */
export type IndicatorValues = Record<string, number | null>;

/** A finished computation run. */
export interface IndicatorRun {
  version: string;
  as_of: string | null;
  stocks: number;
  duration_ms: number;
  computed_at: string;
}

/** Indicators repository. */
export interface IndicatorsRepo {
  /** Replace all values and record the run, in one transaction. */
  replaceAll(values: Map<string, IndicatorValues>, run: IndicatorRun): Promise<void>;
  get(code: string): Promise<{ as_of: string; values: IndicatorValues } | undefined>;
  /** Every stock's values; the JSON is parsed in slices that yield to the event loop. */
  all(): Promise<Map<string, IndicatorValues>>;
  latestRun(q?: Queryable): Promise<IndicatorRun | undefined>;
}

/** Create the indicators repository. */
export function createIndicatorsRepo(db: Db, t: MarketTableNames = LIVE_TABLES): IndicatorsRepo {
  return {
    async replaceAll(values, run) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM ${t.stock_indicators}`);
        const rows = [...values.entries()];
        // Chunks of 100 rows keep each synchronous JSON.stringify run to a few ms (200 took ~8 ms); the insert awaits in between.
        for (let i = 0; i < rows.length; i += 100) {
          const chunk = rows.slice(i, i + 100);
          await tx.run(
            `INSERT INTO ${t.stock_indicators} (stock_code, as_of, values_json) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}`,
            chunk.flatMap(([code, v]) => [code, run.as_of ?? '', JSON.stringify(v)]),
          );
        }
        await tx.run(`INSERT INTO ${t.indicator_runs} (version, as_of, stocks, duration_ms, computed_at) VALUES (?, ?, ?, ?, ?)`, [
          run.version, run.as_of, run.stocks, run.duration_ms, run.computed_at,
        ]);
      });
    },
    async get(code) {
      const row = await db.get<{ as_of: string; values_json: string }>(`SELECT as_of, values_json FROM ${t.stock_indicators} WHERE stock_code = ?`, [code]);
      return row && { as_of: row.as_of, values: JSON.parse(row.values_json) as IndicatorValues };
    },
    async all() {
      // A recomputation committing between two pages would mix two runs: read again if the latest run changed.
      for (let attempt = 1; ; attempt++) {
        const before = await lastRunId(db, t);
        const out = await readAllSliced(db, t);
        if ((await lastRunId(db, t)) === before || attempt === 3) return out;
      }
    },
    latestRun: (q = db) => q.get<IndicatorRun>(`SELECT version, as_of, stocks, duration_ms, computed_at FROM ${t.indicator_runs} ORDER BY id DESC LIMIT 1`),
  };
}

/** Rows per page of `all()`: the driver turns one page into JS objects in one go (~2 ms for 400 rows). */
const PAGE_ROWS = 200;

/** Every row, paged by code so no single driver callback or parse run blocks for long. */
async function readAllSliced(db: Db, t: MarketTableNames): Promise<Map<string, IndicatorValues>> {
  const out = new Map<string, IndicatorValues>();
  const pages = keysetPages<{ stock_code: string; values_json: string }>(
    db, `SELECT stock_code, values_json FROM ${t.stock_indicators} WHERE stock_code > ? ORDER BY stock_code LIMIT ?`, (r) => r.stock_code, PAGE_ROWS,
  );
  for await (const rows of pages) {
    let sliceStart = performance.now();
    for (const r of rows) {
      out.set(r.stock_code, JSON.parse(r.values_json) as IndicatorValues);
      if (performance.now() - sliceStart >= SLICE_MS) {
        await yieldToLoop();
        sliceStart = performance.now();
      }
    }
  }
  return out;
}

async function lastRunId(db: Db, t: MarketTableNames): Promise<string | null> {
  const row = await db.get<{ id: unknown }>(`SELECT MAX(id) AS id FROM ${t.indicator_runs}`);
  return row?.id == null ? null : String(row.id);
}
