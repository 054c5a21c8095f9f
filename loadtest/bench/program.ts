/** Runs a bench as a program: table on stdout, progress on stderr, Ctrl-C stops after the current step. */
import type { BenchIO } from './run-bench.js';

/** A bench body: resolves with the exit code. */
export type BenchMain = (io: BenchIO, env: NodeJS.ProcessEnv, signal: AbortSignal) => Promise<number>;

/** Run `bench`; sets process.exitCode. A second Ctrl-C quits at once. */
export async function runBenchProgram(bench: BenchMain): Promise<void> {
  const controller = new AbortController();
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\nstopping after the current step (Ctrl-C again to quit now)\n');
    controller.abort();
  });
  try {
    process.exitCode = await bench({ out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(s) }, process.env, controller.signal);
  } catch (err) {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
