/**
 * The request-path bench: daemon CPU per request, read from /proc, beside a bare
 * express 5 app doing the same I/O, in interleaved rounds (this box is shared and noisy), with
 * latency p50/p99 and req/s:
 * - complex screen answered from the result cache vs the bare app (target ≤ 1.2×);
 * - complex screen computed (a new body each request) vs the bare app (target ≤ 1.5×);
 * - GET /users/me with limits on vs the bare app (target ≤ 2×);
 * - GET /users/me with limits on vs off (target ≤ +15 % daemon CPU).
 */
import autocannon from 'autocannon';
import { complexBodies } from '../scenarios/screen-bodies.js';
import type { ReportRow } from '../types.js';
import type { BenchChild } from './children.js';
import { processCpuMs } from './process-cpu.js';

/** One load run against one process. */
interface Run {
  cpuUsPerRequest: number | null;
  p50: number;
  p99: number;
  rps: number;
  non2xx: number;
}

/** The servers under test. */
export interface RequestPathTargets {
  on: BenchChild;
  off: BenchChild;
  bare: BenchChild;
  /** The same daemon (limits on) run from another build (BENCH_BEFORE_ROOT): its screen cases run beside this build's. */
  before?: BenchChild;
  /** An access token valid on both daemons (they share storage and the JWT secret). */
  token: string;
}

/** Options of the bench. */
export interface RequestPathOptions {
  rounds: number;
  /** Only the cases whose name contains one of these (all when absent): for profiling one path. */
  only?: string[];
  /** Seconds per run. */
  duration: number;
  connections: number;
  signal?: AbortSignal;
  progress?: (line: string) => void;
}

type Load = { method: 'GET' | 'POST'; path: string; body?: () => unknown };

async function measure(child: BenchChild, load: Load, token: string, o: RequestPathOptions): Promise<Run> {
  const before = processCpuMs(child.pid);
  const instance = autocannon({
    url: child.urls.http!,
    connections: o.connections,
    duration: o.duration,
    requests: [
      {
        method: load.method,
        path: load.path,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (req: autocannon.Request) => (load.body ? { ...req, body: JSON.stringify(load.body()) } : req),
      },
    ],
  });
  const stop = () => (instance as unknown as { stop(): void }).stop();
  o.signal?.addEventListener('abort', stop, { once: true });
  const result = await instance;
  o.signal?.removeEventListener('abort', stop);
  const after = processCpuMs(child.pid);
  const done = result.requests.total;
  return {
    cpuUsPerRequest: before !== null && after !== null && done > 0 ? ((after - before) * 1000) / done : null,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    non2xx: result.non2xx,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The cases, each a load on one target; the comparisons below pair them. */
function cases(t: RequestPathTargets): Record<string, { child: BenchChild; load: Load }> {
  const fixed = complexBodies(false).shapeA;
  const varied = complexBodies(true).shapeA;
  const before = t.before;
  return {
    'screen hit (daemon)': { child: t.on, load: { method: 'POST', path: '/api/v1/screen', body: fixed } },
    'screen miss (daemon)': { child: t.on, load: { method: 'POST', path: '/api/v1/screen', body: varied } },
    ...(before
      ? {
          'screen hit (before build)': { child: before, load: { method: 'POST', path: '/api/v1/screen', body: fixed } },
          'screen miss (before build)': { child: before, load: { method: 'POST', path: '/api/v1/screen', body: varied } },
        }
      : {}),
    'screen (bare express)': { child: t.bare, load: { method: 'POST', path: '/api/v1/screen', body: fixed } },
    'users/me limits on': { child: t.on, load: { method: 'GET', path: '/api/v1/users/me' } },
    'users/me limits off': { child: t.off, load: { method: 'GET', path: '/api/v1/users/me' } },
    'users/me (bare express)': { child: t.bare, load: { method: 'GET', path: '/api/v1/users/me' } },
  };
}

/** The comparisons reported, with their targets (ratio of daemon CPU per request). */
const COMPARISONS = [
  { name: 'complex screen, cache hit vs bare express', subject: 'screen hit (daemon)', base: 'screen (bare express)', target: 1.2 },
  { name: 'complex screen, cache miss vs bare express', subject: 'screen miss (daemon)', base: 'screen (bare express)', target: 1.5 },
  { name: 'complex screen, cache hit vs bare express, before build', subject: 'screen hit (before build)', base: 'screen (bare express)', target: 1.2 },
  { name: 'complex screen, cache miss vs bare express, before build', subject: 'screen miss (before build)', base: 'screen (bare express)', target: 1.5 },
  { name: 'GET /users/me, limits on vs bare express', subject: 'users/me limits on', base: 'users/me (bare express)', target: 2 },
  { name: 'GET /users/me, limits on vs off', subject: 'users/me limits on', base: 'users/me limits off', target: 1.15 },
] as const;

/** Run every case once per round, interleaved; resolves with report rows (medians over rounds). */
export async function runRequestPathBench(t: RequestPathTargets, o: RequestPathOptions): Promise<ReportRow[]> {
  const all = cases(t);
  const runs = new Map<string, Run[]>(Object.keys(all).map((k) => [k, []]));
  for (let round = 0; round < o.rounds && !o.signal?.aborted; round++) {
    for (const [name, c] of Object.entries(all)) {
      if (o.signal?.aborted) break;
      if (o.only && !o.only.some((part) => name.includes(part))) continue;
      o.progress?.(`  round ${round + 1}/${o.rounds}: ${name}\n`);
      runs.get(name)!.push(await measure(c.child, c.load, t.token, o));
    }
  }
  const rows: ReportRow[] = [];
  const cpu = (name: string) => median(runs.get(name)!.map((r) => r.cpuUsPerRequest ?? NaN).filter(Number.isFinite));
  const row = (metric: string, measured: number, unit: string, target: ReportRow['target'] = null, note?: string): ReportRow => ({
    scenario: 'request-path', metric, target, measured: Number.isFinite(measured) ? Math.round(measured * 100) / 100 : null, unit,
    pass: target && Number.isFinite(measured) ? (target.op === '<=' ? measured <= target.value : measured < target.value) : null,
    ...(note ? { note } : {}),
  });
  for (const [name, list] of runs) {
    if (list.length === 0) continue;
    const errors = list.reduce((n, r) => n + r.non2xx, 0);
    const note = errors ? `${errors} non-2xx answers` : undefined;
    rows.push(
      row(`${name}: daemon CPU per request`, cpu(name), 'µs', null, note),
      row(`${name}: latency p50`, median(list.map((r) => r.p50)), 'ms'),
      row(`${name}: latency p99`, median(list.map((r) => r.p99)), 'ms'),
      row(`${name}: throughput`, median(list.map((r) => r.rps)), 'req/s'),
    );
  }
  for (const c of COMPARISONS) {
    // The before build's comparisons only when it ran.
    if (!runs.has(c.subject)) continue;
    rows.push(row(`${c.name} (CPU per request, ratio of medians)`, cpu(c.subject) / cpu(c.base), '×', { op: '<=', value: c.target, source: 'issue' }));
  }
  return rows;
}
