/**
 * The Redis counter store: runs the sliding-window script (EVALSHA, falling back to EVAL
 * once when Redis has not cached it yet) and parses its reply.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { WindowShape } from './policy.js';
import { WINDOW_SCRIPT } from './window-script.js';

/** One counter to check: its key, limit and window shape. */
export interface CounterSpec extends WindowShape {
  key: string;
  limit: number;
}

/** A counter's state as the script reports it (milliseconds; -1 = not computed). */
export interface CounterState {
  /** Requests in the window (including this one when admitted). */
  count: number;
  /** Until the oldest bucket leaves the window (the window length when empty). */
  resetMs: number;
  /** On rejection, for an exceeded counter: until one more request would fit. */
  retryMs: number;
  /** On rejection, for an exceeded counter: when it reached its limit (epoch ms). */
  filledAtMs: number;
}

/** The outcome of one script call. */
export interface WindowResult {
  admitted: boolean;
  /** The time the script used (Redis TIME or the injected clock), epoch ms. */
  nowMs: number;
  counters: CounterState[];
  /** With a probe key: whether that key exists (read in the same atomic call). */
  probed?: boolean;
  /** With a cached answer's keys (hitUnlessCached): the answer found (the request was then not counted), or null. */
  cached?: Buffer | null;
  /** With a cached answer's keys: admitted requests for that answer while it could have been cached, this one included (0 when found or refused). */
  asked?: number;
}

/** A cached answer read in the counters' call: its key, its request counter's key, and how long it is kept. */
export interface CachedAnswerKeys {
  value: string;
  asked: string;
  ttlMs: number;
}

/** Sliding-window counters in Redis. */
export interface RateLimitStore {
  /**
   * Admit and count one request if every counter has room; else count nothing. `probe`, a key
   * whose existence the same call reports (`probed`): the token's revocation mark, which then
   * costs no command of its own. `weight` (default 1, at most the smallest limit): how many
   * requests this one counts as (a costly screen, a large refused body).
   * @throws the Redis client's error when Redis is unreachable
   */
  hit(counters: readonly CounterSpec[], nowMs?: number, probe?: string, weight?: number): Promise<WindowResult>;
  /** Read the counters without counting (for requests that are free). @throws like hit */
  peek(counters: readonly CounterSpec[], nowMs?: number, probe?: string): Promise<WindowResult>;
  /**
   * In one call: read a cached answer; when it exists, peek (an answer from the cache is free) and
   * return it in `cached`; else hit, and count the request for the answer in `asked`. @throws like hit
   */
  hitUnlessCached(counters: readonly CounterSpec[], cache: CachedAnswerKeys, nowMs?: number, probe?: string, weight?: number): Promise<WindowResult>;
}

const SHA = createHash('sha1').update(WINDOW_SCRIPT).digest('hex');

/** Create the store over an API-side command connection (which should fail fast when Redis is down). */
export function createRateLimitStore(redis: Redis): RateLimitStore {
  async function run(mode: string, counters: readonly CounterSpec[], nowMs: number | undefined, probe: string | undefined, cache?: CachedAnswerKeys): Promise<WindowResult> {
    const args: (string | number)[] = [nowMs === undefined ? '' : Math.floor(nowMs), mode];
    const keys: string[] = [];
    for (const c of counters) {
      keys.push(c.key);
      // A log takes its window in ms; a ring its bucket width and the buckets before the current one.
      if (c.bucketS === 0) args.push(c.limit, 0, c.windowS * 1000);
      else args.push(c.limit, c.bucketS * 1000, c.windowS / c.bucketS - 1);
    }
    if (probe !== undefined) keys.push(probe);
    if (cache !== undefined) keys.push(cache.value, cache.asked);
    let reply: unknown;
    // A cached answer is bytes: read as a Buffer (the counters' figures are integers either way).
    const call = cache === undefined ? 'call' : 'callBuffer';
    try {
      reply = await redis[call]('EVALSHA', SHA, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      reply = await redis[call]('EVAL', WINDOW_SCRIPT, keys.length, ...keys, ...args);
    }
    const result = parse(reply as number[], counters.length, probe !== undefined);
    if (cache !== undefined) {
      const at = 2 + counters.length * 4 + (probe !== undefined ? 1 : 0);
      const all = reply as unknown[];
      result.asked = all[at] as number;
      result.cached = all.length > at + 1 ? (all[at + 1] as Buffer) : null;
    }
    return result;
  }
  const weighted = (counters: readonly CounterSpec[], weight: number) => Math.max(1, Math.min(Math.floor(weight), ...counters.map((c) => c.limit)));
  return {
    hit: (counters, nowMs, probe, weight = 1) => {
      const w = weighted(counters, weight);
      return run(w === 1 ? 'hit' : `hit:${w}`, counters, nowMs, probe);
    },
    peek: (counters, nowMs, probe) => run('peek', counters, nowMs, probe),
    hitUnlessCached: (counters, cache, nowMs, probe, weight = 1) =>
      run(`cached:${weighted(counters, weight)}:${Math.max(1, Math.floor(cache.ttlMs))}`, counters, nowMs, probe, cache),
  };
}

function parse(reply: number[], n: number, probed: boolean): WindowResult {
  const counters: CounterState[] = [];
  for (let i = 0; i < n; i++) {
    const at = 2 + i * 4;
    counters.push({ count: reply[at]!, resetMs: reply[at + 1]!, retryMs: reply[at + 2]!, filledAtMs: reply[at + 3]! });
  }
  const result: WindowResult = { admitted: reply[0] === 1, nowMs: reply[1]!, counters };
  if (probed) result.probed = reply[2 + n * 4] === 1;
  return result;
}
