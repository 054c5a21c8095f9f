/**
 * The bench's side-by-side tables for the issues' resolution notes, read from the report
 * rows: screening with the cache off and on, the rate limiter on and off,
 * alert evaluation with and without alerts, market load and the
 * wall time. Pure; a figure that was not measured shows as an em dash.
 */
import { formatMeasured } from '../report.js';
import type { ReportRow } from '../types.js';
import { LABELS } from './compare.js';
import { formatDuration, type BenchTiming } from './timing.js';

/** Scenario labels of the cache-on screening runs. */
export const CACHE_ON = { simple: 'screen-simple (cache on)', complex: 'screen-complex (cache on)' } as const;

type Column = [header: string, metric: string];

function find(rows: readonly ReportRow[], scenario: string, metric: string): ReportRow | undefined {
  return rows.find((r) => r.scenario === scenario && r.metric === metric);
}

function cell(rows: readonly ReportRow[], scenario: string, metric: string): string {
  const r = find(rows, scenario, metric);
  if (!r) return '—  ';
  // Same width with or without a verdict, so right-aligned numbers line up.
  const verdict = r.pass === true ? ' ✓' : r.pass === false ? ' ✗' : '  ';
  return formatMeasured(r.measured, r.unit) + verdict;
}

/** A cell inside running text. */
const inline = (rows: readonly ReportRow[], scenario: string, metric: string) => cell(rows, scenario, metric).trimEnd();

function align(lines: string[][]): string[] {
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => [...(l[c] ?? '')].length)));
  return lines.map((l) => '  ' + l.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('   ').trimEnd());
}

/** A titled table: one line per [label, scenario], one column per [header, metric]. */
export function section(title: string, rows: readonly ReportRow[], lines: [label: string, scenario: string][], columns: Column[]): string[] {
  const table = [['', ...columns.map(([h]) => h)], ...lines.map(([label, scenario]) => [label, ...columns.map(([, m]) => cell(rows, scenario, m))])];
  return [title, ...align(table)];
}

const LATENCY: Column[] = [['p50', 'latency p50'], ['p95', 'latency p95'], ['p99', 'latency p99'], ['throughput', 'throughput'], ['failed', 'failed requests']];

/** The summary text printed after the report table. */
export function benchSummary(rows: readonly ReportRow[], timing: BenchTiming): string {
  const out: string[] = [];
  out.push(
    ...section('Screening, over the whole sample market (spec: simple p95 < 200 ms, complex p99 < 500 ms)', rows, [
      ['screen-simple, cache off', 'screen-simple'],
      ['screen-simple, cache on', CACHE_ON.simple],
      ['screen-complex, cache off', 'screen-complex'],
      ['screen-complex, cache on', CACHE_ON.complex],
    ], LATENCY),
  );
  // The engine alone (no HTTP), target: under 2 ms.
  const engine = [['', 'mean', 'p50', 'p99 (< 2 ms)'], ...(['simple', 'complex'] as const).map((q) => [`engine, ${q} (in process)`, ...['mean', 'p50', 'p99'].map((p) => cell(rows, 'engine', `${q} query ${p}`))])];
  out.push(...align(engine), '');
  out.push(
    ...section('Rate limiter, GET /users/me (target: < 0.5 ms p50 and < 15 % throughput)', rows, [
      ['limits on', LABELS.limiterOn],
      ['limits off', LABELS.limiterOff],
    ], [['throughput', 'throughput'], ['p50', 'latency p50'], ['p99', 'latency p99'], ['failed', 'failed requests'], ['daemon CPU/req', 'daemon CPU per request'], ['Redis CPU/req', 'Redis CPU per request']]),
    ...align([
      ['', ''],
      ['cost', `p50 +${inline(rows, 'rate limiter cost', 'p50 added')}, p99 +${inline(rows, 'rate limiter cost', 'p99 added')}, throughput −${inline(rows, 'rate limiter cost', 'throughput lost')}, server CPU per request +${inline(rows, 'rate limiter cost', 'server CPU per request added')}`],
    ]).slice(1),
    '',
  );
  const inProc = 'alert evaluation (in process)';
  const e2e = 'alert evaluation (POST /admin/ticks)';
  out.push(
    `Alert evaluation, ${inline(rows, inProc, 'active alerts')} active alerts`,
    ...align([
      ['', 'without alerts', 'with alerts', 'added'],
      ['in process: ticks/s', cell(rows, inProc, 'ticks/s without alerts'), cell(rows, inProc, 'ticks/s with alerts'), ''],
      ['in process: per tick p50', '', cell(rows, inProc, 'per tick p50 with alerts'), cell(rows, inProc, 'added per tick p50')],
      ['in process: per tick p99', '', cell(rows, inProc, 'per tick p99 with alerts'), cell(rows, inProc, 'added per tick p99')],
      ['POST /admin/ticks: ticks/s', cell(rows, e2e, 'ticks/s without alerts'), cell(rows, e2e, 'ticks/s with alerts'), ''],
      ['POST /admin/ticks: request p50', cell(rows, e2e, 'request p50 without alerts'), cell(rows, e2e, 'request p50 with alerts'), cell(rows, e2e, 'added per tick p50')],
      ['POST /admin/ticks: request p99', cell(rows, e2e, 'request p99 without alerts'), cell(rows, e2e, 'request p99 with alerts'), cell(rows, e2e, 'added per tick p99')],
    ]),
    '',
  );
  out.push(
    'Market load',
    ...align([
      ['', 'rows', 'load rate', 'indicators', 'max stall', 'skipped', 'halts', 'rejected'],
      ['sample', cell(rows, 'market load (sample)', 'rows loaded'), cell(rows, 'market load (sample)', 'load rate'), cell(rows, 'market load (sample)', 'indicators'), cell(rows, 'market load (sample)', 'indicators max stall'), '', '', ''],
      ['KRX folder', cell(rows, 'market load (KRX)', 'rows loaded'), cell(rows, 'market load (KRX)', 'load rate'), cell(rows, 'market load (KRX)', 'indicators'), cell(rows, 'market load (KRX)', 'indicators max stall'), cell(rows, 'market load (KRX)', 'rows skipped'), cell(rows, 'market load (KRX)', 'halt records'), cell(rows, 'market load (KRX)', 'rows rejected')],
    ]),
    `  snapshot build ${inline(rows, 'market load (sample)', 'snapshot build')}, longest stall ${inline(rows, 'market load (sample)', 'snapshot build max stall')}`,
    '',
  );
  out.push(`Wall time ${formatDuration(timing.total_s)} (target < 10 min on 2 cores): ${timing.steps.map((s) => `${s.step} ${formatDuration(s.seconds)}`).join(' · ')}`);
  return out.join('\n') + '\n';
}
