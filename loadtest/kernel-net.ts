/**
 * The kernel's side of a connect storm, read-only (Linux; null elsewhere): the limits on a
 * listening socket's queues and the counters of connections it dropped because the accept
 * queue was full. A storm scenario reports them so that a failed first attempt can be told
 * apart: the kernel dropping handshakes the daemon did not accept in time (ListenOverflows
 * rises) or something after the accept (the daemon closing, the client giving up).
 */
import { readFileSync } from 'node:fs';

/** Listen-queue limits of the machine. */
export interface ListenLimits {
  /** net.core.somaxconn: the cap on any listen backlog. */
  somaxconn: number | null;
  /** net.ipv4.tcp_max_syn_backlog: half-open connections kept per listener. */
  maxSynBacklog: number | null;
  /** net.ipv4.tcp_syncookies (1: cookies once the SYN queue is full). */
  syncookies: number | null;
}

/** Machine-wide TCP counters of the accept queue. */
export interface ListenCounters {
  /** Times a completed handshake found the accept queue full (TcpExt ListenOverflows). */
  overflows: number;
  /** Connections dropped at a listener, overflows included (TcpExt ListenDrops). */
  drops: number;
}

function readNumber(path: string): number | null {
  try {
    const n = Number(readFileSync(path, 'utf8').trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

/** The machine's listen-queue limits. */
export function readListenLimits(): ListenLimits {
  return {
    somaxconn: readNumber('/proc/sys/net/core/somaxconn'),
    maxSynBacklog: readNumber('/proc/sys/net/ipv4/tcp_max_syn_backlog'),
    syncookies: readNumber('/proc/sys/net/ipv4/tcp_syncookies'),
  };
}

/** Parse /proc/net/netstat (pairs of header and value lines per prefix). */
export function parseListenCounters(text: string): ListenCounters | null {
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.startsWith('TcpExt:') || !lines[i + 1]!.startsWith('TcpExt:')) continue;
    const names = lines[i]!.split(/\s+/);
    const values = lines[i + 1]!.split(/\s+/);
    const get = (name: string) => Number(values[names.indexOf(name)]);
    const overflows = get('ListenOverflows');
    const drops = get('ListenDrops');
    return Number.isFinite(overflows) && Number.isFinite(drops) ? { overflows, drops } : null;
  }
  return null;
}

/** The accept-queue counters now; null when /proc cannot tell. */
export function readListenCounters(): ListenCounters | null {
  try {
    return parseListenCounters(readFileSync('/proc/net/netstat', 'utf8'));
  } catch {
    return null;
  }
}
