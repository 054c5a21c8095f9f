/**
 * Market-data figures: the sample market loaded through the same
 * pipeline as the `load-sample` job (apply per batch, computed index, indicators), the
 * screening snapshot built from it as a daemon builds it on a new indicator version, and
 * optionally the real KRX folder (files, rows loaded, skipped, halted, rejected). For
 * indicator computation and the snapshot build it also reports the longest event-loop
 * stall (`monitorEventLoopDelay` at 1 ms resolution): the job runs in the daemon's process,
 * so that stall is what requests and WebSocket sends wait at worst meanwhile.
 *
 * No daemon, no Redis: a sqlite file (in `sampleDataDir` when given, where `npm run bench`
 * then starts its daemon, so the market is loaded once), or with `databaseUrl` a new schema
 * on that PostgreSQL, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadSnapshotRows } from '../../daemon/wiring/market.js';
import { createMarketStore } from '../../daemon/wiring/store.js';
import { INDICATOR_IDS } from '../../daemon/indicators/registry.js';
import { buildSnapshot } from '../../daemon/screening/engine/snapshot.js';
import { openStore } from '../../daemon/store/open.js';
import { planFolder } from '../../loaders/folder.js';
import { loadFileChunks } from '../../loaders/registry.js';
import { generateSampleMarket } from '../../loaders/sample-market.js';
import { makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';

/** Figures of one market benchmark run (seconds, rows, milliseconds of stall). */
export interface MarketBenchResult {
  sample: {
    stocks: number; days: number; rows: number; load_s: number; rows_per_s: number; index_s: number;
    indicators_s: number; indicators_max_stall_ms: number; snapshot_s: number; snapshot_max_stall_ms: number; snapshot_stocks: number; total_s: number;
    /** Loaded as the load job does: everything in one transaction; publish_s is its commit. */
    atomic: boolean; publish_s: number | null;
  };
  krx?: {
    folder: string; files: number; rows_ok: number; skipped: number; halts: number; rejected: number;
    load_s: number; rows_per_s: number; indicators_s: number; indicators_max_stall_ms: number;
  };
}

/** Options of a market benchmark run. */
export interface MarketBenchOptions {
  stocks: number;
  days: number;
  seed?: number;
  /** The real KRX folder (optional input; skipped when absent). */
  krx?: string;
  databaseUrl?: string;
  /** Load the sample market into this data dir and keep it (sqlite only). */
  sampleDataDir?: string;
  /** Load, index and indicators in one transaction, as the load job does (default true); false: a transaction per batch. */
  atomic?: boolean;
}

/** Run `step` while sampling the event loop; resolves with its result, its seconds and the longest stall in ms. */
async function watched<T>(step: () => Promise<T>): Promise<{ value: T; seconds: number; maxStallMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const t0 = performance.now();
  try {
    const value = await step();
    return { value, seconds: (performance.now() - t0) / 1000, maxStallMs: loop.max / 1e6 };
  } finally {
    loop.disable();
  }
}

/** A new empty store: a sqlite file in `dataDir`, or a new schema on `databaseUrl`; `close` drops the schema. */
async function freshDb(dataDir: string, databaseUrl?: string) {
  const schema = databaseUrl ? `bench_market_${randomBytes(4).toString('hex')}` : undefined;
  const db = await openStore({ data_dir: dataDir, database_url: databaseUrl, database_schema: schema });
  const close = async () => {
    if (schema) await db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  };
  return { close, parts: createMarketStore(db) };
}

type MarketService = ReturnType<typeof createMarketStore>['marketData'];

/** Load the sample, fill the index and compute indicators through `market`; the step times. */
async function sampleSteps(market: MarketService, o: MarketBenchOptions) {
  const t0 = performance.now();
  let rows = 0;
  for (const chunk of generateSampleMarket({ seed: o.seed ?? 42, stocks: o.stocks, days: o.days })) {
    await market.apply(chunk);
    rows += chunk.bars.length + chunk.financials.length + chunk.index.length + chunk.halts.length;
  }
  const t1 = performance.now();
  await market.fillComputedIndex();
  const t2 = performance.now();
  const indicators = await watched(() => market.computeIndicators());
  return { rows, load_s: (t1 - t0) / 1000, index_s: (t2 - t1) / 1000, indicators, end: performance.now() };
}

async function benchSample(dataDir: string, o: MarketBenchOptions): Promise<MarketBenchResult['sample']> {
  const { close, parts } = await freshDb(dataDir, o.databaseUrl);
  const atomic = o.atomic ?? true;
  try {
    const t0 = performance.now();
    const steps = atomic ? await parts.marketData.atomically((m) => sampleSteps(m, o)) : await sampleSteps(parts.marketData, o);
    const published = performance.now();
    // What a daemon does on the new version: read every row, build the columns, swap.
    const snapshot = await watched(async () => {
      const { version, rows: snapRows } = await loadSnapshotRows(parts);
      return buildSnapshot(snapRows, INDICATOR_IDS, version);
    });
    return {
      stocks: o.stocks, days: o.days, rows: steps.rows, load_s: steps.load_s, rows_per_s: steps.rows / steps.load_s, index_s: steps.index_s,
      indicators_s: steps.indicators.seconds, indicators_max_stall_ms: steps.indicators.maxStallMs,
      snapshot_s: snapshot.seconds, snapshot_max_stall_ms: snapshot.maxStallMs, snapshot_stocks: snapshot.value.size,
      total_s: (published - t0) / 1000, atomic, publish_s: atomic ? (published - steps.end) / 1000 : null,
    };
  } finally {
    await close();
  }
}

async function benchKrx(dataDir: string, folder: string, databaseUrl?: string): Promise<NonNullable<MarketBenchResult['krx']>> {
  const { close, parts } = await freshDb(dataDir, databaseUrl);
  try {
    const t0 = performance.now();
    const plan = await planFolder(folder);
    let rowsOk = 0;
    let skipped = 0;
    let halts = 0;
    let rejected = 0;
    for (const f of plan.files) {
      for await (const chunk of loadFileChunks(f.path, { tradeDate: f.trade_date ?? undefined }, f.format)) {
        await parts.marketData.apply(chunk);
        rowsOk += chunk.rows_ok;
        rejected += chunk.rejected.length;
        halts += chunk.halts.length;
        skipped += chunk.skipped.reduce((n, s) => n + s.count, 0);
      }
    }
    const loadS = (performance.now() - t0) / 1000;
    await parts.marketData.fillComputedIndex();
    const indicators = await watched(() => parts.marketData.computeIndicators());
    return {
      folder, files: plan.files.length, rows_ok: rowsOk, skipped, halts, rejected, load_s: loadS, rows_per_s: rowsOk / loadS,
      indicators_s: indicators.seconds, indicators_max_stall_ms: indicators.maxStallMs,
    };
  } finally {
    await close();
  }
}

/**
 * Run the benchmark; prints nothing, returns figures.
 * @throws the store's or a loader's error (a KRX folder that cannot be planned, a file that cannot be read)
 */
export async function runMarketBench(o: MarketBenchOptions): Promise<MarketBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'ss-bench-market-'));
  try {
    const result: MarketBenchResult = { sample: await benchSample(o.sampleDataDir ?? join(dir, 'sample'), o) };
    if (o.krx) result.krx = await benchKrx(join(dir, 'krx'), o.krx, o.databaseUrl);
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Report rows of a market benchmark (scenarios `market load (sample)` and `market load (KRX)`). */
export function marketRows(r: MarketBenchResult, krxNote?: string): ReportRow[] {
  const S = 'market load (sample)';
  const s = r.sample;
  const stall = 'longest event-loop stall; the job runs in the daemon process';
  const rows = [
    makeRow(S, 'rows loaded', s.rows, '', null, { note: `${s.stocks} stocks × ${s.days} days, bars + financials + index + halts` }),
    makeRow(S, 'load', s.load_s, 's', null, { note: s.atomic ? 'the whole job in one transaction, as the load job runs it' : 'a transaction per batch' }),
    makeRow(S, 'load + index + indicators', s.total_s, 's', null, { note: 'until the rows are visible (committed)' }),
    ...(s.publish_s === null ? [] : [makeRow(S, 'publish (commit)', s.publish_s, 's', null, { note: 'the one commit that makes every row visible at once' })]),
    makeRow(S, 'load rate', s.rows_per_s, 'rows/s'),
    makeRow(S, 'indicators', s.indicators_s, 's'),
    makeRow(S, 'indicators max stall', s.indicators_max_stall_ms, 'ms', null, { note: stall }),
    makeRow(S, 'snapshot build', s.snapshot_s, 's', null, { note: `${s.snapshot_stocks} stocks read and built into columns, as on a new indicator version` }),
    makeRow(S, 'snapshot build max stall', s.snapshot_max_stall_ms, 'ms'),
  ];
  const K = 'market load (KRX)';
  if (!r.krx) return [...rows, makeRow(K, 'files', null, '', null, { note: krxNote ?? 'no KRX folder given' })];
  const k = r.krx;
  return [
    ...rows,
    makeRow(K, 'files', k.files, '', null, { note: k.folder }),
    makeRow(K, 'rows loaded', k.rows_ok, ''),
    makeRow(K, 'rows skipped', k.skipped, '', null, { note: 'rows skipped by design (KONEX issues, not covered)' }),
    makeRow(K, 'halt records', k.halts, '', null, { note: 'halted issue-days (Open = High = Low = 0, Volume = 0)' }),
    makeRow(K, 'rows rejected', k.rejected, ''),
    makeRow(K, 'load rate', k.rows_per_s, 'rows/s'),
    makeRow(K, 'indicators', k.indicators_s, 's'),
    makeRow(K, 'indicators max stall', k.indicators_max_stall_ms, 'ms'),
  ];
}
