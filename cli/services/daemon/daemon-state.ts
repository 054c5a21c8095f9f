/**
 * The pid file and the small JSON record (`stockscreend.json`: pid, url, log) that
 * `daemon start` leaves in the XDG state dir, and liveness checks on that pid.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { CliPaths } from '../session/paths.js';

/** What `daemon start` recorded. */
export interface DaemonRecord {
  pid: number;
  /** Base URL, once the daemon answered /health. */
  url?: string;
  logFile: string;
  startedAt: string;
}

/** Read the pid file; undefined when absent or unreadable. */
export function readPid(paths: CliPaths): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(paths.pidFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Read the daemon record; undefined when absent or not JSON. */
export function readDaemonRecord(paths: CliPaths): DaemonRecord | undefined {
  try {
    return JSON.parse(readFileSync(paths.daemonStateFile, 'utf8')) as DaemonRecord;
  } catch {
    return undefined;
  }
}

/** Write the pid file and the record (mode 0600, state dir 0700). */
export async function writeDaemonRecord(paths: CliPaths, record: DaemonRecord): Promise<void> {
  await mkdir(paths.stateDir, { recursive: true, mode: 0o700 });
  await writeFile(paths.pidFile, `${record.pid}\n`, { mode: 0o600 });
  await writeFile(paths.daemonStateFile, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
}

/** Remove the pid file and the record. */
export async function clearDaemonRecord(paths: CliPaths): Promise<void> {
  await rm(paths.pidFile, { force: true });
  await rm(paths.daemonStateFile, { force: true });
}

/**
 * True when `pid` is a live process that looks like stockscreend. On Linux the command
 * line is checked too, so a pid reused by another program after a crash is not signalled.
 */
export function isDaemonAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('stockscreend');
  } catch {
    // No /proc (macOS) or the process just exited: trust kill(0).
    return process.platform !== 'linux';
  }
}

/** The URL of a daemon this CLI started and that is still alive, if any. */
export function runningDaemonUrl(paths: CliPaths): string | undefined {
  const pid = readPid(paths);
  if (pid === undefined || !isDaemonAlive(pid)) return undefined;
  return readDaemonRecord(paths)?.url;
}
