/**
 * The KIS sweep: every listed code, 30 per multi-price call, each call in its slot under the
 * configured rate, a few calls in flight; rows that changed become price events
 * (`source: "sweep"`). EGW00201 waits and retries the same call; an expired token (EGW00123) is
 * dropped and the call retried with a new one.
 */
import type { Logger } from 'pino';
import type { TradingSession } from '../../market-clock.js';
import type { FeedStock } from '../../feed/types.js';
import { recordFailure, type KisFeedState } from './feed-state.js';
import { createPacer, type Pacer } from './pacer.js';
import { KIS, parseMultiPriceRow } from './protocol.js';
import type { KisQuotePath } from './quote-path.js';
import { KisApiError, type KisRest } from './rest-client.js';
import type { KisCredentials } from './token-cache.js';

// Retries of one multi-price call after EGW00201 / an expired token before the sweep moves on.
const MAX_CALL_RETRIES = 3;
const RATE_LIMIT_BACKOFF_MS = 1_000;
const CALLS_IN_FLIGHT = 4;

/** Counters a sweep reports to /metrics. */
export interface KisSweepCounters {
  calls(kind: 'multi_price', outcome: 'ok' | 'rate_limited' | 'token_expired' | 'error'): void;
  sweep(ms: number, changes: number): void;
}

/** Collaborators and settings of the sweep. */
export interface KisSweepDeps {
  rest: Pick<KisRest, 'multiPrice'>;
  credentials: KisCredentials;
  stocks(): Map<string, FeedStock>;
  session(): TradingSession | null;
  quotes: Pick<KisQuotePath, 'apply'>;
  state: KisFeedState;
  callsPerSecond: number;
  sweepPauseMs: number;
  counters: KisSweepCounters;
  logger: Logger;
  now(): number;
}

/** The sweep loop of a source, run once per leadership. */
export interface KisSweep {
  /** Sweep while trading until stop(), with a fresh pacer (pauses a second between sessions or after a failure). */
  run(): Promise<void>;
  /** End the loop (and its waits) soon. */
  stop(): void;
  /** REST calls made since the last take (the daily count across daemons). */
  takeCalls(): number;
}

/** What one sweep's calls share: settings, the pacer, whether the loop still runs, and the call count. */
interface SweepRun {
  deps: KisSweepDeps;
  pacer: Pacer;
  running(): boolean;
  onCall(): void;
}

/** One multi-price call with its retries; the rows, or null when it failed for good. */
async function call(run: SweepRun, codes: string[]): Promise<unknown[] | null> {
  const { deps, pacer } = run;
  const { counters } = deps;
  const fail = (err: unknown) => recordFailure(deps.state, err, deps.now());
  for (let attempt = 0; attempt <= MAX_CALL_RETRIES; attempt++) {
    if (!(await pacer.wait())) return null;
    let token: string;
    try {
      token = await deps.credentials.token();
    } catch (err) {
      fail(err);
      return null;
    }
    run.onCall();
    try {
      const rows = await deps.rest.multiPrice(token, codes);
      counters.calls('multi_price', 'ok');
      return rows;
    } catch (err) {
      fail(err);
      if (err instanceof KisApiError && err.rateLimited) {
        counters.calls('multi_price', 'rate_limited');
        pacer.penalize(RATE_LIMIT_BACKOFF_MS);
        continue;
      }
      if (err instanceof KisApiError && err.tokenExpired) {
        counters.calls('multi_price', 'token_expired');
        await deps.credentials.dropToken(token);
        continue;
      }
      counters.calls('multi_price', 'error');
      return null;
    }
  }
  return null;
}

/** The calls of one sweep over `chunks`, a few in flight, each in its paced slot: a slow answer does not hold the next slot back. */
async function callAll(run: SweepRun, chunks: string[][], session: TradingSession): Promise<{ calls: number; failed: number; changes: number }> {
  const { deps } = run;
  const fail = (err: unknown) => recordFailure(deps.state, err, deps.now());
  const totals = { calls: 0, failed: 0, changes: 0 };
  let next = 0;
  const worker = async () => {
    while (run.running() && next < chunks.length) {
      const chunk = chunks[next++]!;
      totals.calls++;
      const rows = await call(run, chunk);
      if (!rows) {
        totals.failed++;
        continue;
      }
      const asked = new Set(chunk);
      // A row for a code not asked for is not trusted: it could price the wrong stock.
      const quotes = rows.map((r) => {
        const q = parseMultiPriceRow(r);
        return typeof q !== 'string' && !asked.has(q.code) ? ('unknown_code' as const) : q;
      });
      try {
        // Read the total after the await: workers run side by side.
        const changed = await deps.quotes.apply(quotes, 'sweep', session);
        totals.changes += changed;
      } catch (err) {
        // The store did not take them (Redis slow or down): this call's rows count as failed, the sweep goes on.
        fail(err);
        totals.failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CALLS_IN_FLIGHT, chunks.length) }, worker));
  return totals;
}

/** Create the sweep (nothing runs until run()). */
export function createKisSweep(deps: KisSweepDeps): KisSweep {
  const { counters, state, now } = deps;
  let pacer: Pacer = createPacer(deps.callsPerSecond);
  let running = false;
  let callsUnflushed = 0;
  const fail = (err: unknown) => recordFailure(state, err, now());

  async function sweepOnce(session: TradingSession): Promise<void> {
    const codes = [...deps.stocks().keys()].sort();
    if (!codes.length) {
      // Nothing listed yet (no market data loaded): nothing can be stale either.
      state.last_sweep_ok_at = now();
      await pacer.sleep(1_000);
      return;
    }
    const t0 = performance.now();
    const chunks: string[][] = [];
    for (let i = 0; i < codes.length; i += KIS.multiPriceMax) chunks.push(codes.slice(i, i + KIS.multiPriceMax));
    const { calls, failed, changes } = await callAll({ deps, pacer, running: () => running, onCall: () => void callsUnflushed++ }, chunks, session);
    if (!running) return;
    const ms = Math.round(performance.now() - t0);
    counters.sweep(ms, changes);
    state.last_sweep = { at: now(), calls, failed_calls: failed, ms, changes, codes: codes.length };
    if (failed === 0) {
      state.last_sweep_ok_at = now();
      state.last_success_at = now();
    }
    if (deps.sweepPauseMs > 0) await pacer.sleep(deps.sweepPauseMs);
  }

  return {
    async run() {
      running = true;
      pacer = createPacer(deps.callsPerSecond);
      while (running) {
        const session = deps.session();
        if (!session) {
          await pacer.sleep(1_000);
          continue;
        }
        try {
          await sweepOnce(session);
        } catch (err) {
          fail(err);
          deps.logger.warn({ err: (err as Error).message }, 'KIS sweep failed; the next one starts after a pause');
          await pacer.sleep(1_000);
        }
      }
    },
    stop() {
      running = false;
      pacer.stop();
    },
    takeCalls() {
      const calls = callsUnflushed;
      callsUnflushed = 0;
      return calls;
    },
  };
}
