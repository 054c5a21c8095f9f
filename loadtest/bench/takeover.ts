/**
 * Feed-leader takeover time (when the leader dies another daemon must take over within a
 * few seconds): two daemons with the simulator feed on one database and Redis; find the
 * lease holder (`<prefix>feed:leader` names host:pid:…), watch both markets on the other over
 * WebSocket until ticks flow, SIGKILL the holder (a crash: the lease is not released), and
 * time until the survivor holds the lease and until its clients get a tick stamped after
 * the kill. The lease runs 5 s and is renewed every 1.5 s; the simulator steps every
 * `feed_interval_ms`, so expect about 5–8 s.
 */
import { Redis } from 'ioredis';
import { WebSocket } from 'ws';
import { makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';
import { startChild, type BenchChild } from './children.js';

/** A daemon of the measurement, in a process of its own. */
export interface TakeoverDaemon {
  pid: number;
  url: string;
  /** SIGKILL; resolves once it exited. */
  kill(): Promise<void>;
  /** Graceful stop; idempotent, also after kill. */
  close(): Promise<void>;
}

/** Start a daemon process with `config` (default: a bench child, see children.ts). */
export type StartDaemon = (config: Record<string, unknown>) => Promise<TakeoverDaemon>;

const startBenchChild: StartDaemon = async (config) => {
  const c: BenchChild = await startChild({ role: 'daemon', config });
  return { pid: c.pid, url: c.urls.http!, kill: () => c.kill(), close: () => c.close() };
};

/** Options of the measurement. */
export interface TakeoverOptions {
  /** Daemon config shared by both (database, Redis URL and prefix, admin…); the feed is set to the simulator. */
  config: Record<string, unknown>;
  start?: StartDaemon;
  redisUrl: string;
  prefix: string;
  /** Bound of each wait (default 30 s). */
  timeoutMs?: number;
}

/** Seconds from the kill; null when it did not happen within the bound. */
export interface TakeoverResult {
  lease_moved_s: number | null;
  first_tick_s: number | null;
  feed_interval_ms: number;
}

type Frame = { type?: string; timestamp?: string; messages?: Frame[] };

/** Poll `check` every 100 ms until it returns a value or `timeoutMs` passes (then null). */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T | null> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A watcher of both markets: resolves `next(pred)` with the first price update matching it. */
function watchMarkets(httpUrl: string, timeoutMs: number) {
  const socket = new WebSocket(`${httpUrl.replace(/^http/, 'ws')}/v1/ws`);
  const waiters = new Set<{ pred: (f: Frame) => boolean; resolve: (f: Frame | null) => void }>();
  socket.on('error', () => undefined);
  socket.on('message', (raw: Buffer) => {
    let frame: Frame;
    try {
      frame = JSON.parse(raw.toString()) as Frame;
    } catch {
      return;
    }
    for (const f of frame.type === 'batch' ? frame.messages ?? [] : [frame]) {
      if (f.type === 'connected') socket.send(JSON.stringify({ type: 'subscribe', subscription_type: 'market', targets: ['KOSPI', 'KOSDAQ'] }));
      for (const w of [...waiters]) {
        if (w.pred(f)) {
          waiters.delete(w);
          w.resolve(f);
        }
      }
    }
  });
  return {
    next(pred: (f: Frame) => boolean): Promise<Frame | null> {
      return new Promise((resolve) => {
        const w = { pred, resolve };
        waiters.add(w);
        setTimeout(() => {
          if (waiters.delete(w)) resolve(null);
        }, timeoutMs).unref();
      });
    },
    close: () => socket.terminate(),
  };
}

/**
 * Measure a takeover.
 * @throws Error when no leader emerges or no tick flows before the kill
 */
export async function measureFeedTakeover(o: TakeoverOptions): Promise<TakeoverResult> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const config = { ...o.config, feed: 'simulator', workers: 0 };
  const redis = new Redis(o.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  const start = o.start ?? startBenchChild;
  const children: TakeoverDaemon[] = [];
  let watcher: ReturnType<typeof watchMarkets> | undefined;
  try {
    children.push(await start(config));
    children.push(await start(config));
    const leaderPid = async () => Number((await redis.get(`${o.prefix}feed:leader`))?.split(':')[1]) || undefined;
    const first = await until(async () => {
      const pid = await leaderPid();
      return children.some((c) => c.pid === pid) ? pid : undefined;
    }, timeoutMs);
    if (first === null) throw new Error(`no feed leader within ${timeoutMs / 1000} s`);
    const dead = children.find((c) => c.pid === first)!;
    const survivor = children.find((c) => c !== dead)!;
    watcher = watchMarkets(survivor.url, timeoutMs);
    if (!(await watcher.next((f) => f.type === 'price_update'))) throw new Error(`no tick reached the survivor within ${timeoutMs / 1000} s before the kill`);
    // Ticks count from the moment the killed leader is gone (it may stamp one while dying).
    let goneAt = Infinity;
    const t0 = performance.now();
    const tick = watcher.next((f) => f.type === 'price_update' && Date.parse(f.timestamp ?? '') > goneAt).then((f) => (f ? (performance.now() - t0) / 1000 : null));
    await dead.kill();
    goneAt = Date.now();
    const leaseMoved = await until(async () => ((await leaderPid()) === survivor.pid ? (performance.now() - t0) / 1000 : undefined), timeoutMs);
    return { lease_moved_s: leaseMoved, first_tick_s: await tick, feed_interval_ms: Number(o.config.feed_interval_ms ?? 1000) };
  } finally {
    watcher?.close();
    for (const c of children.reverse()) await c.close();
    redis.disconnect();
  }
}

/** Rows of a takeover (scenario `<label> feed takeover`). */
export function takeoverRows(label: string, r: TakeoverResult): ReportRow[] {
  const S = `${label} feed takeover`;
  const missing = (what: string) => ({ note: `${what} did not happen within the bound` });
  return [
    makeRow(S, 'lease moved to the survivor', r.lease_moved_s, 's', null, r.lease_moved_s === null ? missing('the lease move') : { note: 'leader SIGKILLed; lease 5 s, renewed every 1.5 s' }),
    makeRow(S, 'first tick on the survivor', r.first_tick_s, 's', null, r.first_tick_s === null ? missing('a new tick') : { note: `a tick stamped after the kill, at a client of the survivor; simulator step ${r.feed_interval_ms} ms` }),
  ];
}
