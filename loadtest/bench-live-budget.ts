/**
 * `npm run bench:live-budget` (node dist/loadtest/bench-live-budget.js): what whole-list live
 * screens (formula columns, ranks) cost the event loop, in process, for this tree's live-screen
 * engine and another build's (`BENCH_LIVE_BASELINE=/path/to/dist/daemon/live/engine.js`, e.g.
 * main's), on the same sample market. The abuse bench's attacks 1 and 3 at their core, measured
 * by the process itself (so a busy shared machine slows both builds alike instead of hiding the
 * difference):
 *
 * - N distinct whole lists (each 18 chained formula columns and 12 ranks by sector, the heaviest
 *   screen a free account may run), a tick every 10 ms on a random stock for BENCH_LB_SECONDS,
 *   real timers (each engine re-runs on its own timer): the event loop's longest block and p99
 *   delay (`monitorEventLoopDelay`), the process's CPU share, and, as the screen alerts on these
 *   lists do, every list's members read once a second (`membershipWatch(...).codes()`);
 * - subscribing and closing one more screen while the N lists are stale: CPU per subscribe+close.
 *
 * BENCH_LB_LISTS (20,40), BENCH_LB_SECONDS (10), BENCH_LB_STOCKS (2,700), BENCH_LB_DAYS (300).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { INDICATOR_IDS } from '../daemon/indicators/registry.js';
import type { PriceEvent } from '../daemon/kernel/events.js';
import * as current from '../daemon/live/engine.js';
import { parseScreenRequest } from '../daemon/screening/request/request.js';
import type { ScreenQuery } from '../daemon/screening/engine/query.js';
import { buildSnapshot, type Snapshot } from '../daemon/screening/engine/snapshot.js';
import { openStore } from '../daemon/store/open.js';
import { loadSnapshotRows } from '../daemon/wiring/market.js';
import { createMarketStore } from '../daemon/wiring/store.js';
import { loadAlertStocks, replayTicks } from './bench/alerts.js';
import { runMarketBench } from './bench/market-load.js';

type EngineModule = Pick<typeof current, 'createLiveScreenEngine' | 'membershipWatch'>;

const LISTS = (process.env.BENCH_LB_LISTS ?? '20,40').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_LB_SECONDS ?? 10);
const STOCKS = Number(process.env.BENCH_LB_STOCKS ?? 2700);
const DAYS = Number(process.env.BENCH_LB_DAYS ?? 300);
const KNOWN = new Set<string>(INDICATOR_IDS);

/** The heaviest screen of columns and ranks a free budget accepts (as bench-abuse.ts), distinct per seed. */
function heaviest(seed: number): ScreenQuery {
  const columns: Record<string, string> = { c00: `roe + ${seed}` };
  for (let i = 1; i < 18; i++) {
    const p = `c${String(i - 1).padStart(2, '0')}`;
    columns[`c${String(i).padStart(2, '0')}`] = `${p} + ${p} + ${p}`;
  }
  columns.r = Array.from({ length: 12 }, (_, i) => `pct_rank(c17 * ${i + 1} + change_percent) by sector`).join(' + ');
  return parseScreenRequest({ columns, expression: 'r > 10', sort: 'r:desc', per_page: 50 }, KNOWN);
}

interface Figures {
  max_block_ms: number;
  p99_delay_ms: number;
  cpu_pct: number;
  subscribe_close_cpu_ms: number;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Run one engine with `n` whole lists for SECONDS of ticks. */
async function measure(mod: EngineModule, snapshot: Snapshot, ticks: readonly PriceEvent[], n: number): Promise<Figures> {
  const engine = mod.createLiveScreenEngine(snapshot);
  const watches = Array.from({ length: n }, (_, k) => mod.membershipWatch(engine.add(heaviest(k), () => undefined)));
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let t = 0;
  const tickTimer = setInterval(() => engine.onTicks([ticks[t++ % ticks.length]!]), 10);
  // What each screen alert on these lists does once a second.
  const alertTimer = setInterval(() => {
    for (const w of watches) w.codes();
  }, 1000);
  const cpu0 = cpuMs();
  const wall0 = performance.now();
  histogram.enable();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  histogram.disable();
  const cpu = ((cpuMs() - cpu0) / (performance.now() - wall0)) * 100;
  clearInterval(tickTimer);
  clearInterval(alertTimer);
  // Subscribe and close one screen right after a tick made every list stale.
  const probe = parseScreenRequest({ sort: [{ field: 'change_percent', direction: 'desc' }], per_page: 20 }, KNOWN);
  let sc = 0;
  for (let i = 0; i < 5; i++) {
    engine.onTicks([ticks[t++ % ticks.length]!]);
    const c0 = cpuMs();
    const h = engine.add(probe, () => undefined);
    h.members();
    h.close();
    sc += cpuMs() - c0;
  }
  (engine as { close?: () => void }).close?.();
  for (const w of watches) w.close();
  return { max_block_ms: histogram.max / 1e6, p99_delay_ms: histogram.percentile(99) / 1e6, cpu_pct: cpu, subscribe_close_cpu_ms: sc / 5 };
}

const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-lb-'));
try {
  process.stderr.write(`loading the sample market (${STOCKS} stocks × ${DAYS} days)\n`);
  await runMarketBench({ stocks: STOCKS, days: DAYS, seed: 42, sampleDataDir: dataDir });
  const db = await openStore({ data_dir: dataDir });
  let snapshot: Snapshot;
  try {
    const { version, rows } = await loadSnapshotRows(createMarketStore(db));
    snapshot = buildSnapshot(rows, INDICATOR_IDS, version);
  } finally {
    await db.close();
  }
  const ticks = replayTicks(await loadAlertStocks({ data_dir: dataDir }), 20_000);
  const builds: [string, EngineModule][] = [['branch', current]];
  if (process.env.BENCH_LIVE_BASELINE) builds.unshift(['baseline', (await import(process.env.BENCH_LIVE_BASELINE)) as EngineModule]);
  process.stdout.write('lists  build     longest block  p99 loop delay  CPU %  CPU per subscribe+close\n');
  for (const n of LISTS) {
    for (const [name, mod] of builds) {
      process.stderr.write(`${n} lists on ${name} (${SECONDS} s)\n`);
      const f = await measure(mod, snapshot, ticks, n);
      process.stdout.write(
        `${String(n).padEnd(6)} ${name.padEnd(9)} ${`${f.max_block_ms.toFixed(0)} ms`.padStart(13)}  ${`${f.p99_delay_ms.toFixed(0)} ms`.padStart(14)}  ${f.cpu_pct.toFixed(0).padStart(5)}  ${`${f.subscribe_close_cpu_ms.toFixed(1)} ms`.padStart(10)}\n`,
      );
    }
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
