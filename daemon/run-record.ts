/**
 * Writing and removing this process's DaemonRunRecord (daemon/contract/daemon-record.ts) in
 * `$XDG_STATE_HOME/stockscreen/daemons/`, so the CLI finds the daemon on a URL however it was
 * started. The state directory is read from the environment the daemon was given.
 */
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { DAEMON_RECORDS_DIR, daemonRecordName, type DaemonRunRecord } from './contract/daemon-record.js';

/** `$XDG_STATE_HOME/stockscreen` (an absolute XDG_STATE_HOME only), else `$HOME/.local/state/stockscreen`. */
export function stateDirOf(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'stockscreen');
}

/**
 * The regular file this process's stdout is redirected to (what `daemon start` does), or null for
 * a terminal, a pipe or a platform without /proc.
 */
export function stdoutLogFile(): string | null {
  try {
    const target = readlinkSync('/proc/self/fd/1');
    return isAbsolute(target) && statSync(target).isFile() ? target : null;
  } catch {
    return null;
  }
}

/** The record's path for `url` under `stateDir`. */
export function runRecordPath(stateDir: string, url: string): string {
  return join(stateDir, DAEMON_RECORDS_DIR, daemonRecordName(url));
}

/**
 * Write the record (0600, its folder 0700); resolves with a function that removes it again when
 * it is still this process's. Never throws: a daemon serves even when it cannot leave a record.
 */
export async function writeRunRecord(stateDir: string, record: DaemonRunRecord): Promise<() => Promise<void>> {
  const file = runRecordPath(stateDir, record.url);
  try {
    await mkdir(join(stateDir, DAEMON_RECORDS_DIR), { recursive: true, mode: 0o700 });
    await writeFile(file, JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
  } catch {
    return async () => undefined;
  }
  return async () => {
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as Partial<DaemonRunRecord>;
      if (current.pid === record.pid) await rm(file, { force: true });
    } catch {
      // gone already, or replaced by another daemon's record: leave it
    }
  };
}
