/**
 * CPU time of the server-side processes (the daemon, the Redis it uses) over a load run's
 * measured seconds, per request: what a feature costs the service itself, apart from the load
 * generator, which shares this machine's cores. Linux only (/proc); elsewhere the figures are null.
 */
import { Redis } from 'ioredis';
import { isLoopbackHost } from '../guard.js';
import { processCpuMs } from '../proc-cpu.js';
import type { ProgressListener } from '../types.js';

/** Re-exported: CPU ms of a process from /proc (loadtest/proc-cpu.ts). */
export { processCpuMs };

/** The pid of the Redis at `url` when it runs on this machine (INFO process_id, seen in /proc); else null. */
export async function localRedisPid(url: string): Promise<number | null> {
  if (!isLoopbackHost(new URL(url).hostname)) return null;
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  try {
    await redis.connect();
    const pid = Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]);
    return Number.isInteger(pid) && processCpuMs(pid) !== null ? pid : null;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/** CPU µs per request of each watched process over the measured phase (null when unknown). */
export interface CpuPerRequest {
  daemonUs: number | null;
  redisUs: number | null;
}

/**
 * Watch a run's progress: from its first tick in the measure phase to its last tick, the CPU
 * the processes used and the responses the generator counted (ticks are once a second).
 * `listener` wraps another listener; `result()` reads the figures once the run is over.
 */
export function cpuPerRequestWatch(pids: { daemon: number; redis: number | null }, next?: ProgressListener): { listener: ProgressListener; result(): CpuPerRequest } {
  let phase = '';
  let first: { daemon: number | null; redis: number | null } | null = null;
  let last: { daemon: number | null; redis: number | null } | null = null;
  let requests = 0;
  const sample = () => ({ daemon: processCpuMs(pids.daemon), redis: pids.redis === null ? null : processCpuMs(pids.redis) });
  return {
    listener(event) {
      if (event.type === 'phase') phase = event.phase;
      if (event.type === 'tick' && phase === 'measure') {
        if (!first) first = sample();
        else {
          requests += event.requests_per_s ?? 0;
          last = sample();
        }
      }
      next?.(event);
    },
    result() {
      const per = (a: number | null | undefined, b: number | null | undefined) =>
        a == null || b == null || requests === 0 ? null : ((b - a) * 1000) / requests;
      return { daemonUs: per(first?.daemon, last?.daemon), redisUs: per(first?.redis, last?.redis) };
    },
  };
}
