/**
 * Alert evaluation cost end to end: ticks through POST /admin/ticks on the bench
 * daemon — each batch updates the live quotes, runs alert evaluation on the request path and
 * is published — first with no alert, then with `alerts` active alerts of mixed types over
 * every stock (created through POST /alerts by an enterprise user, whose tier has no cap).
 * Closed loop: `inFlight` requests of `batch` ticks each, for `seconds` after a 1 s warm-up.
 * Reports accepted ticks/s and request latency of both runs, and the latency added per tick.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { accessTokenOf, type ApiClient } from '../api.js';
import { Histogram, type HistogramSummary } from '../histogram.js';
import { BENCH_USER_LIMIT } from '../session.js';
import { makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';
import { loadQuotes, nextTick, type Quote } from '../ws/tick-source.js';
import { alertMix } from './alerts.js';

/** Options of the end-to-end run. */
export interface AlertTickOptions {
  api: ApiClient;
  adminToken: string;
  /** Stocks to tick and set alerts on (every stock of the market). */
  codes: readonly string[];
  alerts: number;
  seconds: number;
  batch: number;
  inFlight: number;
  signal: AbortSignal;
}

/** Figures of one tick run. */
export interface TickRun {
  ticks_per_s: number;
  requests: number;
  failed: number;
  /** Why the first failed request failed (status and error message, or the network error). */
  first_failure: string | null;
  latency_ms: HistogramSummary;
}

/** Figures of the end-to-end run. */
export interface AlertTickResult {
  codes: number;
  batch: number;
  in_flight: number;
  alerts_created: number;
  alerts_failed: number;
  create_per_s: number;
  without_alerts: TickRun;
  with_alerts: TickRun;
  firings: number | null;
}

/** A user of the enterprise tier (no cap on active alerts) with a limit that never throttles. */
async function alertOwner(api: ApiClient, adminToken: string, signal: AbortSignal): Promise<string> {
  const email = `bench-alerts-${randomUUID().slice(0, 8)}@example.com`;
  const password = randomBytes(12).toString('base64url');
  await api.ok('/api/v1/auth/register', { json: { email, password }, signal });
  const first = accessTokenOf(await api.ok('/api/v1/auth/login', { json: { email, password }, signal }));
  const me = await api.ok<{ data: { id: string } }>('/api/v1/users/me', { token: first, signal });
  await api.ok(`/api/v1/admin/users/${me.data.id}`, { method: 'PATCH', json: { tier: 'enterprise', rate_limit_per_hour: BENCH_USER_LIMIT }, token: adminToken, signal });
  return accessTokenOf(await api.ok('/api/v1/auth/login', { json: { email, password }, signal }));
}

/** Send batches of ticks closed loop for `seconds`; the quotes keep advancing across runs. */
async function tickRun(o: AlertTickOptions, quotes: Quote[], seconds: number): Promise<TickRun> {
  const h = new Histogram();
  let accepted = 0;
  let requests = 0;
  let failed = 0;
  let firstFailure: string | null = null;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  // Each lane owns a share of the stocks: a stock's cumulative volume must not go down, so
  // its ticks must arrive in order, which requests in flight at once do not guarantee.
  const lane = async (mine: Quote[]) => {
    let cursor = 0;
    while (performance.now() < deadline && !o.signal.aborted && mine.length > 0) {
      const ticks = Array.from({ length: Math.min(o.batch, mine.length) }, () => nextTick(mine[cursor++ % mine.length]!));
      const t0 = performance.now();
      const res = await o.api.call<{ error?: { message?: string } }>('/api/v1/admin/ticks', { json: { ticks }, token: o.adminToken, timeoutMs: 10_000, signal: o.signal })
        .catch((err: Error) => err);
      requests++;
      if (!(res instanceof Error) && res.status >= 200 && res.status < 300) {
        h.record((performance.now() - t0) * 1000);
        accepted += ticks.length;
      } else {
        failed++;
        firstFailure ??= res instanceof Error ? res.message : `${res.status} ${res.body?.error?.message ?? ''}`.trim();
      }
    }
  };
  const lanes = Math.max(1, Math.min(o.inFlight, quotes.length));
  await Promise.all(Array.from({ length: lanes }, (_, i) => lane(quotes.filter((_, k) => k % lanes === i))));
  return { ticks_per_s: accepted / ((performance.now() - started) / 1000), requests, failed, first_failure: firstFailure, latency_ms: h.summary(1000) };
}

/** Create the alert mix through POST /alerts, 8 at a time; resolves with created and failed counts. */
async function createAlerts(o: AlertTickOptions, token: string, quotes: readonly Quote[]): Promise<{ created: number; failed: number; seconds: number }> {
  // Thresholds against the live price (and today's change), which the ticks move by one tick only.
  const stocks = quotes.map((q) => ({ code: q.code, close: q.base }));
  const byCode = new Map(quotes.map((q) => [q.code, q]));
  const specs = alertMix(stocks, o.alerts).map((a) => {
    const q = byCode.get(a.code)!;
    if (a.alert_type === 'change_percent_above') return { ...a, threshold: Math.round((q.changePercent + a.threshold) * 100) / 100 };
    if (a.alert_type === 'change_percent_below') return { ...a, threshold: Math.round((q.changePercent + a.threshold) * 100) / 100 };
    return a;
  });
  let next = 0;
  let created = 0;
  let failed = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < specs.length && !o.signal.aborted) {
      const res = await o.api.call('/api/v1/alerts', { json: specs[next++], token, signal: o.signal }).catch(() => null);
      if (res && res.status === 201) created++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return { created, failed, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Tick without alerts, create the alerts, tick again.
 * @throws ApiCallError when the owner cannot be set up or a quote cannot be read
 */
export async function runAlertTickBench(o: AlertTickOptions): Promise<AlertTickResult> {
  const token = await alertOwner(o.api, o.adminToken, o.signal);
  const quotes = await loadQuotes(o.api, token, o.codes, o.signal);
  await tickRun(o, quotes, 1); // warm-up
  const without = await tickRun(o, quotes, o.seconds);
  const made = await createAlerts(o, token, quotes);
  await tickRun(o, quotes, 1);
  const withAlerts = await tickRun(o, quotes, o.seconds);
  const events = await o.api.call<{ meta?: { total?: number } }>('/api/v1/alerts/events?limit=1', { token, signal: o.signal }).catch(() => null);
  return {
    codes: quotes.length, batch: o.batch, in_flight: o.inFlight,
    alerts_created: made.created, alerts_failed: made.failed, create_per_s: made.created / made.seconds,
    without_alerts: without, with_alerts: withAlerts,
    firings: typeof events?.body?.meta?.total === 'number' ? events.body.meta.total : null,
  };
}

const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

/** Rows of the end-to-end figures (scenario `alert evaluation (POST /admin/ticks)`). */
export function alertTickRows(r: AlertTickResult): ReportRow[] {
  const S = 'alert evaluation (POST /admin/ticks)';
  const per = (ms: number | null) => (ms === null ? null : (ms * 1000) / r.batch);
  const failed = r.without_alerts.failed + r.with_alerts.failed;
  return [
    makeRow(S, 'active alerts', r.alerts_created, '', null, {
      note: `over ${r.codes} stocks; ${r.in_flight} requests of ${r.batch} ticks in flight${r.alerts_failed ? `; ${r.alerts_failed} alerts not created` : ''}${failed ? `; ${failed} tick requests failed (first: ${r.without_alerts.first_failure ?? r.with_alerts.first_failure})` : ''}`,
    }),
    makeRow(S, 'alerts created/s (POST /alerts)', r.create_per_s, 'alert/s'),
    makeRow(S, 'ticks/s without alerts', r.without_alerts.ticks_per_s, 'tick/s'),
    makeRow(S, 'ticks/s with alerts', r.with_alerts.ticks_per_s, 'tick/s'),
    makeRow(S, 'request p50 without alerts', r.without_alerts.latency_ms.p50, 'ms'),
    makeRow(S, 'request p50 with alerts', r.with_alerts.latency_ms.p50, 'ms'),
    makeRow(S, 'request p99 without alerts', r.without_alerts.latency_ms.p99, 'ms'),
    makeRow(S, 'request p99 with alerts', r.with_alerts.latency_ms.p99, 'ms'),
    makeRow(S, 'added per tick p50', per(minus(r.with_alerts.latency_ms.p50, r.without_alerts.latency_ms.p50)), 'µs', null, { note: 'request latency added by the alerts, over the ticks of a request' }),
    makeRow(S, 'added per tick p99', per(minus(r.with_alerts.latency_ms.p99, r.without_alerts.latency_ms.p99)), 'µs'),
    makeRow(S, 'firings', r.firings, ''),
  ];
}
