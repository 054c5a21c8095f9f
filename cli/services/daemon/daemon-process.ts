/**
 * Starting and stopping `stockscreend` as a detached process: the launcher is resolved
 * relative to this package, output goes to a log file and the pid to a pid file under
 * the XDG state dir; start waits until GET /health answers.
 */
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiClient } from '../transport/api-client.js';
import { clearDaemonRecord, isDaemonAlive, readDaemonRecord, readPid, writeDaemonRecord } from './daemon-state.js';
import { CliError, LOCAL_CODES } from '../session/errors.js';
import { fileSize, listeningUrl, readLogLines } from './log-file.js';
import { packageRoot } from './package-root.js';
import type { CliPaths } from '../session/paths.js';

/** Flags passed through to stockscreend (absent ones are left to its own flag > env > file > default rules). */
export interface DaemonStartOptions {
  host?: string;
  port?: number;
  dataDir?: string;
  redisUrl?: string;
  /** PostgreSQL URL: handed over as DATABASE_URL in the environment, never on the command line (`ps` would show its password). */
  databaseUrl?: string;
  databaseSchema?: string;
  sample?: boolean;
  /** How long to wait for /health (default 20 s). */
  timeoutMs?: number;
}

/** A daemon that answered /health. */
export interface StartedDaemon {
  pid: number;
  url: string;
  logFile: string;
}

/** Replaceable parts (tests). */
export interface DaemonProcessDeps {
  /** Path of bin/stockscreend. */
  launcher?: string;
}

const POLL_MS = 100;
const TAIL_LINES = 20;

/**
 * bin/stockscreend of this package.
 * @throws CliError DAEMON when the daemon has not been compiled
 */
export function resolveLauncher(): string {
  const root = packageRoot();
  if (!existsSync(join(root, 'dist', 'daemon', 'main.js'))) {
    throw new CliError({ code: LOCAL_CODES.DAEMON, message: `stockscreend is not built (no ${join(root, 'dist', 'daemon', 'main.js')})`, hint: 'run `npm run build` first' });
  }
  return join(root, 'bin', 'stockscreend');
}

/** The daemon's command-line flags for `options`. */
export function daemonArgs(options: DaemonStartOptions): string[] {
  const args: string[] = [];
  if (options.host !== undefined) args.push('--host', options.host);
  if (options.port !== undefined) args.push('--port', String(options.port));
  if (options.dataDir !== undefined) args.push('--data-dir', resolve(options.dataDir));
  if (options.redisUrl !== undefined) args.push('--redis-url', options.redisUrl);
  if (options.databaseSchema !== undefined) args.push('--database-schema', options.databaseSchema);
  if (options.sample) args.push('--sample');
  return args;
}

/** A URL a client can connect to (a wildcard listen address becomes loopback). */
export function connectableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

/** A spawned daemon process and how it ended, if it did. */
interface Spawned {
  pid: number;
  /** Set once the process exits or fails to start ("exited with code 1", …). */
  exited(): string | undefined;
}

/** Spawn `node bin/stockscreend …` detached with stdout and stderr appended to the log file. */
async function spawnDetached(launcher: string, args: string[], logFile: string, env: NodeJS.ProcessEnv): Promise<Spawned> {
  const logFd = openSync(logFile, 'a', 0o600);
  let child;
  try {
    child = spawn(process.execPath, [launcher, ...args], { detached: true, stdio: ['ignore', logFd, logFd], env });
  } finally {
    closeSync(logFd);
  }
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = signal ? `was killed by ${signal}` : `exited with code ${code}`));
  child.once('error', (err) => (exited = `could not be started: ${err.message}`));
  child.unref();
  if (child.pid === undefined) {
    await sleep(0); // let the 'error' event say why
    throw new CliError({ code: LOCAL_CODES.DAEMON, message: `stockscreend ${exited ?? 'could not be started'}` });
  }
  return { pid: child.pid, exited: () => exited };
}

/** Poll until the daemon answers /health (its URL read from the "listening" log line); undefined on exit or timeout. */
async function waitUntilHealthy(daemon: Spawned, logFile: string, logOffset: number, fallbackUrl: string | undefined, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !daemon.exited()) {
    const url = listeningUrl(await readLogLines(logFile, { from: logOffset })) ?? fallbackUrl;
    if (url && (await answersHealth(connectableUrl(url)))) return connectableUrl(url);
    await sleep(POLL_MS);
  }
  return undefined;
}

/** The daemon `daemon start` started earlier, when it is still alive. */
export function runningDaemon(paths: CliPaths): { pid: number; url?: string } | undefined {
  const pid = readPid(paths);
  if (pid === undefined || !isDaemonAlive(pid)) return undefined;
  return { pid, url: readDaemonRecord(paths)?.url };
}

/**
 * Start stockscreend detached and wait until /health answers.
 * @throws CliError DAEMON when one is already running, it exits early, or it does not answer in time (with the log tail)
 */
export async function startDaemon(paths: CliPaths, env: NodeJS.ProcessEnv, options: DaemonStartOptions, deps: DaemonProcessDeps = {}): Promise<StartedDaemon> {
  const running = readPid(paths);
  if (running !== undefined && isDaemonAlive(running)) {
    const url = readDaemonRecord(paths)?.url;
    throw new CliError({ code: LOCAL_CODES.DAEMON, message: `stockscreend is already running (pid ${running}${url ? `, ${url}` : ''})`, hint: 'stop it with `stockscreen daemon stop`' });
  }
  const launcher = deps.launcher ?? resolveLauncher();
  await mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  const logOffset = await fileSize(paths.logFile);
  const daemon = await spawnDetached(launcher, daemonArgs(options), paths.logFile, options.databaseUrl ? { ...env, DATABASE_URL: options.databaseUrl } : env);
  const startedAt = new Date().toISOString();
  await writeDaemonRecord(paths, { pid: daemon.pid, logFile: paths.logFile, startedAt });

  const timeoutMs = options.timeoutMs ?? 20_000;
  const fallbackUrl = options.port ? `http://${options.host ?? '127.0.0.1'}:${options.port}` : undefined;
  const url = await waitUntilHealthy(daemon, paths.logFile, logOffset, fallbackUrl, timeoutMs);
  if (url) {
    await writeDaemonRecord(paths, { pid: daemon.pid, url, logFile: paths.logFile, startedAt });
    return { pid: daemon.pid, url, logFile: paths.logFile };
  }
  const why = daemon.exited() ?? `did not answer /health within ${timeoutMs / 1000} s`;
  if (!daemon.exited()) process.kill(daemon.pid, 'SIGTERM');
  await clearDaemonRecord(paths);
  throw new CliError({
    code: LOCAL_CODES.DAEMON,
    message: `stockscreend ${why}; last lines of ${paths.logFile}:`,
    context: await readLogLines(paths.logFile, { from: logOffset, count: TAIL_LINES }),
    hint: 'fix the problem above (is Redis reachable? is the port free?) and try again',
  });
}

/**
 * The URL of a healthy stockscreend already answering where `options` would start one (not
 * for `--port 0`, which picks a free port), else undefined.
 */
export async function healthyDaemonAt(options: Pick<DaemonStartOptions, 'host' | 'port'>, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const port = options.port ?? Number(env.STOCKSCREEN_PORT ?? 8000);
  if (!Number.isInteger(port) || port === 0) return undefined;
  const host = options.host ?? env.STOCKSCREEN_HOST ?? '127.0.0.1';
  const url = connectableUrl(`http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  return (await answersHealth(url)) ? url : undefined;
}

/** True when a stockscreend at `url` answers /health as healthy within a second. */
export async function answersHealth(url: string): Promise<boolean> {
  try {
    const res = await createApiClient({ baseUrl: url, timeoutMs: 1000 }).request<{ status?: string }>({ path: '/health', auth: false, allowError: true });
    return res.status === 200 && res.data?.status === 'healthy';
  } catch {
    return false;
  }
}

/** Options of stopDaemon. */
export interface DaemonStopOptions {
  /** How long to wait for a graceful exit (default 15 s). */
  timeoutMs?: number;
  /** Send SIGKILL when the graceful exit times out. */
  force?: boolean;
}

/** What stopDaemon found. */
export interface StopResult {
  /** The pid signalled, when a daemon was running. */
  pid?: number;
  /** True when it only had to remove a stale pid file. */
  stale: boolean;
}

/**
 * SIGTERM the daemon `pid` (found by daemon-target.ts) and wait for it to exit (graceful
 * shutdown); without a pid, only a stale pid file of `daemon start` is cleared.
 * @throws CliError DAEMON when it is still running after the timeout (and force is off)
 */
export async function stopDaemon(paths: CliPaths, pid: number | undefined, options: DaemonStopOptions = {}): Promise<StopResult> {
  if (pid === undefined) {
    const recorded = readPid(paths);
    if (recorded === undefined || isDaemonAlive(recorded)) return { stale: false };
    await clearDaemonRecord(paths);
    return { stale: true };
  }
  process.kill(pid, 'SIGTERM');
  const timeoutMs = options.timeoutMs ?? 15_000;
  if (!(await waitForExit(pid, timeoutMs))) {
    if (!options.force) {
      throw new CliError({ code: LOCAL_CODES.DAEMON, message: `stockscreend (pid ${pid}) is still running ${timeoutMs / 1000} s after SIGTERM`, hint: 'see `stockscreen daemon logs`, or retry with --force to send SIGKILL' });
    }
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid, 5000);
  }
  if (readPid(paths) === pid) await clearDaemonRecord(paths);
  return { pid, stale: false };
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isDaemonAlive(pid)) return true;
    await sleep(POLL_MS);
  }
  return !isDaemonAlive(pid);
}
