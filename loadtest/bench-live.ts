/**
 * `npm run bench:live` entry (node dist/loadtest/bench-live.js): only the live-screen step of
 * `npm run bench` (bench/live-screens.ts) on a freshly loaded sample market, for a quick look
 * on a shared machine. `BENCH_SCALE=quick|tiny` as for the bench; `BENCH_LIVE_SCREENS` and
 * `BENCH_LIVE_SECONDS` override the screen count and the bound of each run; `BENCH_LIVE_VERIFY=1`
 * first checks 300 of the screens against the engine after 3,000 ticks.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { liveScreenRows, runLiveScreenBench } from './bench/live-screens.js';
import { runMarketBench } from './bench/market-load.js';
import { planFor } from './bench/plan.js';
import { runBenchProgram } from './bench/program.js';

await runBenchProgram(async (io, env) => {
  const plan = planFor(env);
  const live = {
    ...plan.live,
    ...(env.BENCH_LIVE_SCREENS ? { screens: Number(env.BENCH_LIVE_SCREENS) } : {}),
    ...(env.BENCH_LIVE_SECONDS ? { seconds: Number(env.BENCH_LIVE_SECONDS) } : {}),
    verify: env.BENCH_LIVE_VERIFY === '1',
  };
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-live-'));
  try {
    io.err(`loading the sample market (${plan.market.stocks} stocks × ${plan.market.days} days)\n`);
    await runMarketBench({ ...plan.market, sampleDataDir: dataDir });
    io.err(`live screens: ${live.screens} screens, CPU with ${live.cpuScreens} vs none, runs ≤ ${live.seconds} s\n`);
    for (const row of liveScreenRows(await runLiveScreenBench({ data_dir: dataDir }, live))) {
      io.out(`${row.metric}\t${row.measured} ${row.unit}${row.note ? `\t(${row.note})` : ''}\n`);
    }
    return 0;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
