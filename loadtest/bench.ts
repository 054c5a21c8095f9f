/**
 * `npm run bench` entry (node dist/loadtest/bench.js): runs the bench, prints the table on
 * stdout and progress on stderr. Ctrl-C stops the current scenario cleanly and still writes
 * the partial results; a second Ctrl-C quits at once. `BENCH_SCALE=quick` for a smoke run.
 */
import { runBenchProgram } from './bench/program.js';
import { runBench } from './bench/run-bench.js';

await runBenchProgram(runBench);
