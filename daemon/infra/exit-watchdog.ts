/**
 * The last resort of a bounded shutdown: a thread that ends the process once the bound has passed.
 * The main thread's own timer cannot fire while its event loop is starved (a synchronous loop, or
 * promises that settle at once, over and over): a thread of its own still can.
 */
import { Worker } from 'node:worker_threads';

// Plain CommonJS for `eval`: write straight to fd 2 (the main thread may not be able to) and SIGKILL.
const WATCHDOG = `
const { writeSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
setTimeout(() => {
  try { writeSync(2, workerData.message); } catch {}
  process.kill(workerData.pid, 'SIGKILL');
}, workerData.ms);
`;

/** A running watchdog. */
export interface ExitWatchdog {
  /** Call it off (the process goes on: an embedder's, a test runner's). */
  stop(): void;
}

/**
 * Kill this process (SIGKILL, saying why on stderr) after `ms`, unless it has exited or the
 * watchdog was stopped by then. The thread does not keep the process alive.
 */
export function startExitWatchdog(ms: number, message: string): ExitWatchdog {
  const watchdog = new Worker(WATCHDOG, { eval: true, workerData: { pid: process.pid, ms, message: `${message}\n` } });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return { stop: () => void watchdog.terminate().catch(() => undefined) };
}
