/** Fork the bench's child processes (child-entry.ts) and talk to them over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import type { ChildMessage, ChildStart } from './child-entry.js';

/** A running child. */
export interface BenchChild {
  pid: number;
  urls: Record<string, string>;
  /** Ask it to close gracefully (killed after 20 s); idempotent. */
  close(): Promise<void>;
  /** Kill it at once with SIGKILL (a crash: nothing released); resolves once it exited. */
  kill(): Promise<void>;
}

function waitExit(child: ChildProcess, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Start a child serving `start`; resolves once it listens. `entry`: another build's child-entry.js
 * (a before/after comparison runs the previous build's daemon beside this one).
 * @throws Error with the child's message when it fails to start or exits early
 */
export function startChild(start: ChildStart, timeoutMs = 60_000, entry: URL = new URL('./child-entry.js', import.meta.url)): Promise<BenchChild> {
  // BENCH_CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the servers under test.
  const execArgv = [...process.execArgv, ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  const child = fork(entry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  let closing: Promise<void> | undefined;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${start.role} did not start within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${start.role} exited during start (code ${code})`));
    });
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'failed') {
        clearTimeout(timer);
        child.kill();
        reject(new Error(`${start.role} failed to start: ${m.message}`));
      } else if (m.type === 'ready') {
        clearTimeout(timer);
        resolve({
          pid: m.pid,
          urls: m.urls,
          close() {
            closing ??= (async () => {
              if (child.connected) child.send({ type: 'close' });
              await waitExit(child, 20_000);
            })();
            return closing;
          },
          kill() {
            closing ??= (async () => {
              child.kill('SIGKILL');
              await waitExit(child, 20_000);
            })();
            return closing;
          },
        });
      }
    });
    child.send(start);
  });
}
