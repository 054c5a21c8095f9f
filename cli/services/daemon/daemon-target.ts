/**
 * "The daemon on this URL", whichever command started it: every running stockscreend leaves a
 * record (pid, URL, log file) under `$XDG_STATE_HOME/stockscreen/daemons/` (daemon/contract/
 * daemon-record.ts); `daemon start` also keeps its own record of what it started. `daemon status`,
 * `stop` and `logs` all find their daemon here, so they agree about a daemon `npm run up` started.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DAEMON_RECORDS_DIR, daemonRecordName, type DaemonRunRecord } from '../../../daemon/contract/daemon-record.js';
import type { CliPaths } from '../session/paths.js';
import type { Session } from '../session/session.js';
import { isDaemonAlive, readDaemonRecord, runningDaemonUrl } from './daemon-state.js';

/** The daemon a control command acts on. */
export interface DaemonTarget {
  url: string;
  /** Its process on this machine, when a live record names one. */
  pid?: number;
  /** Where its log lines go: a file, or null for a terminal or pipe (`npm run up`); undefined when unknown. */
  logFile?: string | null;
}

/** The URL a control command means: --url/STOCKSCREEN_URL, else the daemon `daemon start` started, else the session's. */
export function controlUrl(session: Pick<Session, 'urlSource' | 'baseUrl' | 'paths'>): string {
  if (session.urlSource === 'flag') return session.baseUrl;
  return runningDaemonUrl(session.paths) ?? session.baseUrl;
}

/** The record file of the daemon on `url`. */
export function runRecordFile(paths: CliPaths, url: string): string {
  return join(paths.stateDir, DAEMON_RECORDS_DIR, daemonRecordName(url));
}

function readRunRecord(file: string): DaemonRunRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as DaemonRunRecord;
    return Number.isInteger(record.pid) && record.pid > 0 ? record : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Find the daemon on `url`: its live record (a stale one, whose process is gone, is removed), else
 * the one `daemon start` recorded for that URL, else just the URL.
 */
export async function findDaemon(paths: CliPaths, url: string): Promise<DaemonTarget> {
  const file = runRecordFile(paths, url);
  const record = readRunRecord(file);
  if (record && isDaemonAlive(record.pid)) return { url, pid: record.pid, logFile: record.log_file };
  if (record) await rm(file, { force: true });
  const started = readDaemonRecord(paths);
  if (started?.url === url && isDaemonAlive(started.pid)) return { url, pid: started.pid, logFile: started.logFile };
  return { url };
}
