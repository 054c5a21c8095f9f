/**
 * Side-by-side rows of the bench: the platform's figures as a share of the bare-server
 * baselines, and the rate limiter's cost (limits on minus limits off). Pure.
 */
import { ISSUE_TARGETS, makeRow } from '../targets.js';
import type { Report, ReportRow } from '../types.js';

/** Scenario labels the bench gives its runs. */
export const LABELS = {
  httpBaseline: 'bare node:http',
  wsBaseline: 'bare ws',
  limiterOn: 'auth-get (rate limit on)',
  limiterOff: 'auth-get (rate limit off)',
} as const;

/**
 * A report's rows and summaries under another scenario label; `dropTargets` for baselines,
 * which are measured with the same scenarios but are not the platform the targets are for.
 */
export function relabel(report: Report, from: string, to: string, dropTargets = false): Report {
  const row = (r: ReportRow): ReportRow => {
    if (r.scenario !== from) return r;
    const { note, ...rest } = r;
    if (!dropTargets) return { ...r, scenario: to };
    return { ...rest, scenario: to, target: null, pass: null, ...(note && !/target|FAILED/.test(note) ? { note } : {}) };
  };
  return {
    ...report,
    rows: report.rows.map(row),
    scenarios: report.scenarios.map((s) => (s.scenario === from ? { ...s, scenario: to, ...(dropTargets && s.status !== 'error' && s.status !== 'aborted' ? { status: 'info' as const } : {}) } : s)),
  };
}

/**
 * One set of rows from several runs of one scenario: the mean of each figure, except the
 * failed share, where the worst run counts; targets are judged again on the combined figure.
 */
export function averageRuns(runs: readonly ReportRow[][], scenario: string): ReportRow[] {
  const first = runs[0] ?? [];
  return first.map((r) => {
    const values = runs.map((rows) => rows.find((x) => x.metric === r.metric)?.measured ?? null);
    const known = values.filter((v): v is number => v !== null);
    const combined = known.length !== values.length ? null : r.metric.startsWith('failed requests') ? Math.max(...known) : known.reduce((a, b) => a + b, 0) / known.length;
    // One note for the set (on the first row) rather than one per figure.
    const note = r === first[0] ? `figures are the mean (failed share: the worst) of ${runs.length} interleaved runs` : undefined;
    return makeRow(scenario, r.metric, combined, r.unit, r.target, { note });
  });
}

function value(rows: readonly ReportRow[], scenario: string, metric: string): number | null {
  return rows.find((r) => r.scenario === scenario && r.metric === metric)?.measured ?? null;
}

const share = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : (a / b) * 100);
const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

/** A run's server-side CPU per request as rows of its scenario (see process-cpu.ts). */
export function serverCpuRows(scenario: string, cpu: { daemonUs: number | null; redisUs: number | null }): ReportRow[] {
  return [makeRow(scenario, 'daemon CPU per request', cpu.daemonUs, 'µs'), makeRow(scenario, 'Redis CPU per request', cpu.redisUs, 'µs')];
}

/** Rows reading the platform against the baselines. */
export function baselineRows(rows: readonly ReportRow[]): ReportRow[] {
  const S = 'vs baseline';
  const bare = value(rows, LABELS.httpBaseline, 'throughput');
  return [
    makeRow(S, 'screen-simple req/s, % of bare http', share(value(rows, 'screen-simple', 'throughput'), bare), '%'),
    makeRow(S, 'screen-complex req/s, % of bare http', share(value(rows, 'screen-complex', 'throughput'), bare), '%'),
    makeRow(S, 'stocks-mixed req/s, % of bare http', share(value(rows, 'stocks-mixed', 'throughput'), bare), '%'),
    makeRow(S, 'auth-get req/s, % of bare http', share(value(rows, LABELS.limiterOn, 'throughput'), bare), '%'),
    makeRow(S, 'ws messages/s, % of bare ws', share(value(rows, 'ws-fanout', 'messages delivered/s'), value(rows, LABELS.wsBaseline, 'messages delivered/s')), '%'),
    makeRow(S, 'ws latency p99, ms over bare ws', minus(value(rows, 'ws-fanout', 'latency p99'), value(rows, LABELS.wsBaseline, 'latency p99')), 'ms'),
  ];
}

/**
 * Rows of the rate limiter's cost on one authenticated GET: latency added (p50
 * judged against < 0.5 ms) and throughput lost (judged against < 15 %), limits on minus off.
 */
export function limiterRows(rows: readonly ReportRow[]): ReportRow[] {
  const S = 'rate limiter cost';
  const on = (m: string) => value(rows, LABELS.limiterOn, m);
  const off = (m: string) => value(rows, LABELS.limiterOff, m);
  const kept = share(on('throughput'), off('throughput'));
  const invalid = [on('failed requests'), off('failed requests')].some((f) => f !== null && f > 1);
  const judgement = invalid ? { valid: false } : {};
  const server = (get: (m: string) => number | null) => {
    const daemon = get('daemon CPU per request');
    const redis = get('Redis CPU per request');
    return daemon === null || redis === null ? null : daemon + redis;
  };
  const cpuOn = server(on);
  const cpuOff = server(off);
  return [
    makeRow(S, 'p50 added', minus(on('latency p50'), off('latency p50')), 'ms', ISSUE_TARGETS.limiterP50AddedMs, judgement),
    makeRow(S, 'p99 added', minus(on('latency p99'), off('latency p99')), 'ms'),
    makeRow(S, 'throughput with limits, % of without', kept, '%'),
    makeRow(S, 'throughput lost', kept === null ? null : 100 - kept, '%', ISSUE_TARGETS.limiterThroughputCostPercent, judgement),
    // What the limiter costs the service itself (daemon + Redis CPU), apart from the load
    // generator, which shares the machine's cores.
    makeRow(S, 'server CPU per request added', cpuOn === null || cpuOff === null || cpuOff === 0 ? null : (cpuOn / cpuOff - 1) * 100, '%'),
  ];
}
