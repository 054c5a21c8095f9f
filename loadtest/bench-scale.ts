/**
 * `npm run bench:scale` entry (node dist/loadtest/bench-scale.js): one daemon against two,
 * on sqlite and on PostgreSQL (see bench/scale.ts). `BENCH_SCALE=quick` for a smoke run,
 * `BENCH_PG_URL` for another PostgreSQL server.
 */
import { runBenchProgram } from './bench/program.js';
import { runScaleBench } from './bench/scale.js';

await runBenchProgram(runScaleBench);
