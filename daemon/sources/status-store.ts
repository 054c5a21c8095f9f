/**
 * What every daemon knows of each data source, kept in Redis so all of them (and the worker
 * processes that run the jobs) show the same: calls made today (KST), the last successful run
 * and the last error. Reads fail soft (a status page must answer while Redis is away).
 */
import type { Redis } from 'ioredis';
import type { SourceError } from '../contract/sources.js';

/** The KST calendar date (YYYY-MM-DD) at `ms`: KRX and OpenDART count days in Korean time. */
export function kstDate(ms: number): string {
  return new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);
}

/** Minutes since midnight of a time of day `HH:MM` (a provider's publication time, in KST). */
export function minutesOfDay(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** What the store holds of one source. */
export interface StoredSourceState {
  calls_today: number;
  last_success_at: string | null;
  last_error: SourceError | null;
}

/** The status store. */
export interface SourceStatusStore {
  /** Count `n` calls made now; resolves to today's total. */
  countCalls(source: string, n?: number): Promise<number>;
  callsToday(source: string): Promise<number>;
  /** A run finished without an error: clears the last error. */
  recordSuccess(source: string): Promise<void>;
  recordError(source: string, error: Omit<SourceError, 'at'>): Promise<void>;
  read(source: string): Promise<StoredSourceState>;
}

/** Create the store over the API command connection; `key` prefixes keys. */
export function createSourceStatusStore(commands: Redis, key: (...parts: string[]) => string, now: () => number): SourceStatusStore {
  const callsKey = (source: string) => key('sources', source, 'calls', kstDate(now()));
  const stateKey = (source: string) => key('sources', source, 'state');
  const callsToday = async (source: string) => Number((await commands.get(callsKey(source)).catch(() => null)) ?? 0);
  return {
    async countCalls(source, n = 1) {
      const k = callsKey(source);
      const [[, total]] = (await commands.multi().incrby(k, n).expire(k, 3 * 86_400).exec()) as [[Error | null, number]];
      return Number(total);
    },
    callsToday,
    async recordSuccess(source) {
      await commands.multi().hset(stateKey(source), 'last_success_at', new Date(now()).toISOString()).hdel(stateKey(source), 'last_error').exec();
    },
    async recordError(source, error) {
      await commands.hset(stateKey(source), 'last_error', JSON.stringify({ at: new Date(now()).toISOString(), ...error }));
    },
    async read(source) {
      const [state, calls] = await Promise.all([commands.hgetall(stateKey(source)).catch(() => ({} as Record<string, string>)), callsToday(source)]);
      let lastError: SourceError | null = null;
      try {
        lastError = state.last_error ? (JSON.parse(state.last_error) as SourceError) : null;
      } catch {
        lastError = null;
      }
      return { calls_today: calls, last_success_at: state.last_success_at ?? null, last_error: lastError };
    },
  };
}
