/**
 * Open-file limits. Node cannot change its own RLIMIT_NOFILE, but on Linux util-linux's
 * `prlimit` can raise a process's soft limit up to its hard limit (no privilege needed for
 * one's own processes). Every WebSocket client needs one descriptor in the generator and,
 * on the same machine, one in the daemon.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Soft and hard open-file limits. */
export interface FdLimits {
  soft: number;
  hard: number;
}

/** Parse the "Max open files" line of /proc/<pid>/limits (null when absent). */
export function parseLimits(text: string): FdLimits | null {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!m) return null;
  const num = (s: string) => (s === 'unlimited' ? Number.POSITIVE_INFINITY : Number(s));
  return { soft: num(m[1]!), hard: num(m[2]!) };
}

/** Limits of `pid` (default: this process); null where /proc is not available. */
export async function readFdLimits(pid: number | 'self' = 'self'): Promise<FdLimits | null> {
  try {
    return parseLimits(await readFile(`/proc/${pid}/limits`, 'utf8'));
  } catch {
    return null;
  }
}

/** Outcome of making room for `needed` descriptors. */
export interface FdCheck {
  limits: FdLimits | null;
  /** True when the soft limit now covers `needed`. */
  enough: boolean;
  /** What happened, for the report (raised, could not raise, unknown). */
  note?: string;
}

function prlimit(pid: number, value: number): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('prlimit', ['--pid', String(pid), `--nofile=${value}:`], { timeout: 5000 }, (err) => resolve(!err));
  });
}

/**
 * Make sure process `pid` may hold `needed` descriptors, raising its soft limit with
 * `prlimit` (up to the hard limit) when it is short. Never throws.
 */
export async function ensureFdLimit(needed: number, pid: number = process.pid): Promise<FdCheck> {
  const limits = await readFdLimits(pid === process.pid ? 'self' : pid);
  if (!limits) return { limits: null, enough: true, note: 'open-file limit unknown (no /proc): make sure `ulimit -n` covers the connections' };
  if (limits.soft >= needed) return { limits, enough: true };
  const who = pid === process.pid ? 'the load generator' : `process ${pid}`;
  const target = Math.min(limits.hard, Math.max(needed, limits.soft));
  if (target > limits.soft && (await prlimit(pid, target))) {
    const after = (await readFdLimits(pid === process.pid ? 'self' : pid)) ?? limits;
    if (after.soft >= needed) return { limits: after, enough: true, note: `raised the open-file limit of ${who} from ${limits.soft} to ${after.soft}` };
  }
  const why = limits.hard < needed ? `its hard limit is ${limits.hard}` : 'prlimit is not available or was refused';
  return {
    limits,
    enough: false,
    note: `${who} may open ${limits.soft} files but needs ${needed}; could not raise it (${why}). Raise it before starting (ulimit -n ${needed}, or LimitNOFILE= in systemd)`,
  };
}
