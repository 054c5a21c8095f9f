/**
 * `npm run bench:live` entry (node dist/loadtest/bench-live.js): the live-screen steps on a
 * freshly loaded sample market.
 * 1. In process (bench/live-screens.ts, also a step of `npm run bench`): ticks/s with
 *    `BENCH_LIVE_SCREENS` screens, CPU per tick with 1,000 against none and against the engine
 *    with parts of its design switched off, in interleaved rounds (`BENCH_LIVE_ROUNDS`, 2);
 *    `BENCH_LIVE_BASELINE=/path/to/dist/daemon/live/engine.js` adds another build's engine
 *    (e.g. main's) to the same rounds. `BENCH_LIVE_SECONDS` bounds each run;
 *    `BENCH_LIVE_VERIFY=1` first checks 300 of the screens against the engine after 3,000 ticks.
 * 2. Delivery (bench/live-delivery.ts): a daemon in a child process on the same market,
 *    500 WebSocket connections holding 1,000 live screens, a feed of one tick per stock per
 *    second; `BENCH_LIVE_CONNECTIONS`, `BENCH_LIVE_DELIVERY_SCREENS`, `BENCH_LIVE_DELIVERY_SECONDS`
 *    (per round), `BENCH_LIVE_DELIVERY_ROUNDS`; `BENCH_LIVE_DELIVERY=0` skips it,
 *    `BENCH_LIVE_INPROCESS=0` skips step 1.
 * `BENCH_SCALE=quick|tiny` as for the bench.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Snapshot } from '../daemon/screening/engine/snapshot.js';
import { liveDeliveryRows, runLiveDeliveryBench } from './bench/live-delivery.js';
import { liveScreenRows, runLiveScreenBench, type EngineFactory } from './bench/live-screens.js';
import { runMarketBench } from './bench/market-load.js';
import { planFor } from './bench/plan.js';
import { runBenchProgram } from './bench/program.js';
import type { ReportRow } from './types.js';

const num = (v: string | undefined): number | undefined => (v && Number(v) > 0 ? Number(v) : undefined);

/** The engine of another build (BENCH_LIVE_BASELINE: the path of its dist/daemon/live/engine.js). */
async function baselineEngine(path: string | undefined): Promise<EngineFactory | undefined> {
  if (!path) return undefined;
  const mod = (await import(path)) as { createLiveScreenEngine: EngineFactory };
  return (s: Snapshot) => mod.createLiveScreenEngine(s);
}

await runBenchProgram(async (io, env) => {
  const plan = planFor(env);
  const print = (rows: ReportRow[]) => {
    for (const row of rows) io.out(`${row.scenario}\t${row.metric}\t${row.measured} ${row.unit}${row.note ? `\t(${row.note})` : ''}\n`);
  };
  const live = {
    ...plan.live,
    ...(num(env.BENCH_LIVE_SCREENS) ? { screens: num(env.BENCH_LIVE_SCREENS)! } : {}),
    ...(num(env.BENCH_LIVE_SECONDS) ? { seconds: num(env.BENCH_LIVE_SECONDS)! } : {}),
    rounds: num(env.BENCH_LIVE_ROUNDS) ?? 2,
    verify: env.BENCH_LIVE_VERIFY === '1',
    baseline: await baselineEngine(env.BENCH_LIVE_BASELINE),
  };
  const d = plan.liveDelivery;
  const delivery = {
    ...d,
    connections: num(env.BENCH_LIVE_CONNECTIONS) ?? d.connections,
    screens: num(env.BENCH_LIVE_DELIVERY_SCREENS) ?? d.screens,
    seconds: num(env.BENCH_LIVE_DELIVERY_SECONDS) ?? d.seconds,
    rounds: num(env.BENCH_LIVE_DELIVERY_ROUNDS) ?? d.rounds,
  };
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-live-'));
  try {
    io.err(`loading the sample market (${plan.market.stocks} stocks × ${plan.market.days} days)\n`);
    await runMarketBench({ ...plan.market, sampleDataDir: dataDir });
    if (env.BENCH_LIVE_INPROCESS !== '0') {
      io.err(`live screens in process: ${live.screens} screens, CPU with ${live.cpuScreens} vs none, ${live.rounds} rounds, runs ≤ ${live.seconds} s\n`);
      print(liveScreenRows(await runLiveScreenBench({ data_dir: dataDir }, live)));
    }
    if (env.BENCH_LIVE_DELIVERY !== '0') {
      io.err(`live screens delivered: ${delivery.connections} connections, ${delivery.screens} screens, ${delivery.rounds} × (${delivery.seconds} s with, ${delivery.seconds} s without)\n`);
      print(liveDeliveryRows(await runLiveDeliveryBench({ ...delivery, market: plan.market, dataDir, log: (l) => io.err(`  ${l}\n`) }, env)));
    }
    return 0;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
