/**
 * Real `stockscreend` processes for scale-out tests: the built launcher (bin/stockscreend
 * → dist/, built by `npm test`'s pretest), one JSON config file each, JSON logs on stdout
 * parsed to learn the URL. `kill()` is a crash (SIGKILL), `stop()` a graceful SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LAUNCHER = join(ROOT, 'bin/stockscreend');

/** Every process started here and not yet exited: a failed start must not leave one behind. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** SIGTERM every process started here that is still running, and wait for them. */
export async function stopAllDaemonProcesses(): Promise<void> {
  await Promise.all([...running].map((child) => new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  })));
}

/** A running daemon or worker process. */
export interface DaemonProcess {
  pid: number;
  /** Base URL (daemons only). */
  url: string;
  /** Its log lines so far (JSON text), for failure messages. */
  log(): string[];
  /** SIGKILL: a crash, nothing is cleaned up. Resolves once it exited. */
  kill(): Promise<void>;
  /** SIGTERM: graceful shutdown. Resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Send `name` without waiting. */
  signal(name: NodeJS.Signals): void;
  /** Resolves once the process exited: its exit code, or the signal that ended it. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log line (from now on or already seen) that `match` accepts; rejects after `timeoutMs`. */
  waitForLog(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
}

/**
 * Start `stockscreend [worker]` with `config` written to `<configDir>/<name>.json`.
 * @throws when it exits or does not report ready within `timeoutMs`, with its log tail
 */
export async function startDaemonProcess(name: string, configDir: string, config: Record<string, unknown>, options: { worker?: boolean; timeoutMs?: number } = {}): Promise<DaemonProcess> {
  if (!existsSync(join(ROOT, 'dist/daemon/main.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it first)');
  const file = join(configDir, `${name}.json`);
  await writeFile(file, JSON.stringify(config, null, 2));
  // A clean environment: no STOCKSCREEN_* / REDIS_URL / DATABASE_URL of the caller leaks in.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STOCKSCREEN_|REDIS_URL$|DATABASE_URL$)/.test(k)));
  const child: ChildProcess = spawn(process.execPath, [LAUNCHER, ...(options.worker ? ['worker'] : []), '--config', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Last resort when the test process itself goes away: no daemon outlives it.
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  const lines: string[] = [];
  const lineWaiters = new Set<(line: string) => void>();
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const exited = exit.then(({ code }) => code);
  const ready = new Promise<string>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready after ${options.timeoutMs ?? 20_000} ms:\n${lines.slice(-20).join('\n')}`)), options.timeoutMs ?? 20_000);
    const onLine = (line: string) => {
      lines.push(line);
      for (const waiter of lineWaiters) waiter(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (options.worker ? entry.msg === 'stockscreend worker ready' : typeof entry.url === 'string' && entry.msg?.includes('listening')) {
          clearTimeout(timer);
          resolveReady(entry.url ?? '');
        }
      } catch {
        // not JSON (e.g. a warning from node): kept in the log only
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${lines.slice(-20).join('\n')}`));
    });
  });
  const url = await ready;
  return {
    pid: child.pid!,
    url,
    log: () => lines,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    signal(name) {
      child.kill(name);
    },
    exit,
    waitForLog(match, timeoutMs = 30_000) {
      const seen = lines.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => (lineWaiters.delete(waiter), reject(new Error(`${name}: no such log line within ${timeoutMs} ms:\n${lines.slice(-20).join('\n')}`))), timeoutMs);
        const waiter = (line: string) => {
          if (!match(line)) return;
          clearTimeout(timer);
          lineWaiters.delete(waiter);
          resolveLine(line);
        };
        lineWaiters.add(waiter);
      });
    },
  };
}
