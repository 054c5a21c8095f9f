/**
 * The record a running `stockscreend` leaves for the CLI on its machine, whichever command
 * started it (`npm run up`, `stockscreen daemon start`, a shell): one JSON file per listen
 * address under `$XDG_STATE_HOME/stockscreen/daemons/`, so `daemon status`, `stop` and `logs`
 * agree on "the daemon on this URL". Written once it listens, removed when it stops.
 */

/** Folder of the records, under the CLI's and the daemon's state directory. */
export const DAEMON_RECORDS_DIR = 'daemons';

/** What a running daemon says about itself. */
export interface DaemonRunRecord {
  pid: number;
  /** Base URL clients connect to (a wildcard listen address as loopback). */
  url: string;
  /** The file its log lines go to, or null when they go to a terminal or a pipe (`npm run up`). */
  log_file: string | null;
  started_at: string;
}

/** The record's file name for a base URL: `127.0.0.1_8000.json`, `[::1]_8000` as `__1_8000.json`. */
export function daemonRecordName(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname.replace(/[^A-Za-z0-9.-]/g, '_')}_${port || '80'}.json`;
}
