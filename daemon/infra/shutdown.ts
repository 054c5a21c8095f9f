/**
 * Closing in a written order: every step runs, in order, whatever the
 * ones before it did; a failure is logged with the step's name and the next step still runs.
 * The daemon's shutdown, its clean-up after a failed start, and the worker process share it.
 */
import type { Logger } from 'pino';

/** One named step. */
export type ShutdownStep = readonly [name: string, run: () => Promise<unknown>];

/** Run `steps` in order, continuing past failures (each logged at `level` with its step name). */
export async function runShutdownSteps(steps: readonly ShutdownStep[], logger: Logger, level: 'warn' | 'error' = 'error', message = 'shutdown step failed'): Promise<void> {
  for (const [name, run] of steps) {
    try {
      logger.debug({ step: name }, 'shutdown step');
      await run();
    } catch (err) {
      logger[level]({ err: err instanceof Error ? err.message : String(err), step: name }, message);
    }
  }
}
