/** The stop signal of long-running commands: the injected one (tests) or Ctrl-C (SIGINT). */
import type { CliIO } from '../../io.js';

/** An AbortSignal and the function that releases what it holds. */
export interface Interrupt {
  signal: AbortSignal;
  release(): void;
}

/** `io.signal` when given, else a signal that aborts on SIGINT (Ctrl-C ends the command normally). */
export function interruptSignal(io: CliIO): Interrupt {
  if (io.signal) return { signal: io.signal, release: () => undefined };
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  return { signal: controller.signal, release: () => void process.off('SIGINT', onSigint) };
}
