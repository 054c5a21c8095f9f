/**
 * XDG base directories for the CLI, always derived from the injected environment:
 * config (credentials) under $XDG_CONFIG_HOME/stockscreen, pid and log files under
 * $XDG_STATE_HOME/stockscreen, data under $XDG_DATA_HOME/stockscreen.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** Where the CLI keeps its files. */
export interface CliPaths {
  configDir: string;
  stateDir: string;
  dataDir: string;
  credentialsFile: string;
  pidFile: string;
  logFile: string;
  /** JSON record of the daemon this CLI started (pid, url). */
  daemonStateFile: string;
}

const APP = 'stockscreen';

/** One XDG base: the variable when it is an absolute path (the spec ignores relative ones), else $HOME/<fallback>. */
function xdgBase(env: NodeJS.ProcessEnv, name: string, fallback: string[]): string {
  const value = env[name];
  if (value && isAbsolute(value)) return value;
  return join(env.HOME || homedir(), ...fallback);
}

/** Resolve the CLI's directories and files from `env`. */
export function resolvePaths(env: NodeJS.ProcessEnv): CliPaths {
  const configDir = join(xdgBase(env, 'XDG_CONFIG_HOME', ['.config']), APP);
  const stateDir = join(xdgBase(env, 'XDG_STATE_HOME', ['.local', 'state']), APP);
  const dataDir = join(xdgBase(env, 'XDG_DATA_HOME', ['.local', 'share']), APP);
  return {
    configDir,
    stateDir,
    dataDir,
    credentialsFile: join(configDir, 'credentials.json'),
    pidFile: join(stateDir, 'stockscreend.pid'),
    logFile: join(stateDir, 'stockscreend.log'),
    daemonStateFile: join(stateDir, 'stockscreend.json'),
  };
}
