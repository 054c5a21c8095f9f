/**
 * `npm run bench:storm` entry (node dist/loadtest/bench-storm.js): 10,000 WebSocket clients
 * reconnecting within 10 s after a restart (see bench/storm.ts). BENCH_SCALE=quick for a
 * smoke run; BENCH_STORM_CLIENTS, BENCH_STORM_WINDOW, BENCH_STORM_ROUNDS choose the size.
 */
import { runBenchProgram } from './bench/program.js';
import { runStormBench } from './bench/storm.js';

await runBenchProgram(runStormBench);
