/**
 * `npm run bench:ws` entry (node dist/loadtest/bench-ws.js): the WebSocket sweep and the
 * 10,000-client WebSocket run (see bench/ws-sweep.ts). `BENCH_SCALE=quick` for a smoke
 * run, `BENCH_WS_SWEEP=1000,5000` to choose the sweep's client counts.
 */
import { runBenchProgram } from './bench/program.js';
import { runWsBench } from './bench/ws-sweep.js';

await runBenchProgram(runWsBench);
