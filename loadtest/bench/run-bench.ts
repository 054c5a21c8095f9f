/**
 * `npm run bench`: load the sample market (and the real KRX folder when present) in process
 * into a temp data dir, timing the load, indicators and snapshot build with their longest
 * event-loop stall; start a fresh daemon on it in a child process (own Redis prefix, admin
 * from config, rate limits raised for the bench user); time the screening engine; run every
 * scenario (screening also with the result cache on); price the rate limiter against a
 * second daemon with limits off; measure alert evaluation in process and through
 * POST /admin/ticks; run the bare-server baselines (another child); then write
 * loadtest/results/<date>.json, print the table, the side-by-side summary and the wall time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApiClient } from '../api.js';
import { ensureFdLimit } from '../fd-limit.js';
import type { LoadtestOptions } from '../options.js';
import { formatReport, runVerdict } from '../report.js';
import { runLoadtest } from '../runner.js';
import type { ProgressEvent, Report, ReportRow, ScenarioSummary } from '../types.js';
import { alertTickRows, runAlertTickBench } from './alert-ticks.js';
import { alertEvaluationRows, loadAlertStocks, runAlertEvaluationBench } from './alerts.js';
import { averageRuns, baselineRows, LABELS, limiterRows, relabel, serverCpuRows } from './compare.js';
import { engineRows } from './engine-timing.js';
import { historyRows } from './history-timing.js';
import { startChild, type BenchChild } from './children.js';
import { adminLogin } from './market.js';
import { marketRows, runMarketBench } from './market-load.js';
import { cpuPerRequestWatch, localRedisPid } from './process-cpu.js';
import { benchDaemonConfig, planFor, type BenchPlan, type BenchDaemonSettings } from './plan.js';
import { packageRoot, resultsFile, saveResults } from './paths.js';
import { deletePrefix, ensureBenchRedis } from './redis.js';
import { benchSummary, CACHE_ON } from './summary.js';
import { runRequestPathBench } from './request-path.js';
import { liveScreenRows, runLiveScreenBench } from './live-screens.js';
import { complexBodies } from '../scenarios/screen-bodies.js';
import { createStepClock, formatDuration, timingRows, type BenchTiming, type StepClock } from './timing.js';

/** Where the bench writes (stderr for progress, stdout for the table). */
export interface BenchIO {
  out(text: string): void;
  err(text: string): void;
}

/** The bench's report: a load-test report plus what the bench set up. */
export type BenchReport = Report & {
  bench: { plan: BenchPlan; results_file: string | null; daemon: Record<string, unknown>; timing: BenchTiming; krx_folder: string | null };
};

function progressLogger(io: BenchIO) {
  return (e: ProgressEvent) => {
    if (e.type === 'scenario-start') io.err(`▶ ${e.scenario}\n`);
    else if (e.type === 'phase') io.err(`  ${e.phase}${e.detail ? ` (${e.detail})` : ''}\n`);
    else if (e.type === 'scenario-end') io.err(`  ${e.status}${e.message ? `: ${e.message}` : ''}\n`);
  };
}

interface Collected {
  rows: ReportRow[];
  scenarios: ScenarioSummary[];
  notes: Set<string>;
  first?: Report;
}

function collect(into: Collected, report: Report, from?: string, to?: string, dropTargets = false): void {
  const r = from && to ? relabel(report, from, to, dropTargets) : report;
  into.first ??= r;
  into.rows.push(...r.rows);
  into.scenarios.push(...r.scenarios);
  for (const n of r.notes) into.notes.add(n);
}

interface Stage {
  child: BenchChild;
  admin: { email: string; password: string };
  plan: BenchPlan;
  signal: AbortSignal;
  io: BenchIO;
  /** BENCH_HISTORY=0 skips the as-of/backtest timing (it reads the whole history, ~1 min on a full market). */
  skipHistory?: boolean;
}

function daemonRunner(s: Stage): (o: Partial<LoadtestOptions>) => Promise<Report> {
  const { plan } = s;
  const base: LoadtestOptions = { url: s.child.urls.http!, admin: s.admin, duration: plan.rest.duration, warmup: plan.rest.warmup, connections: plan.rest.connections };
  const hooks = { signal: s.signal, onProgress: progressLogger(s.io) };
  return (o) => runLoadtest({ ...base, ...o }, hooks);
}

async function runRestScenarios(s: Stage, into: Collected): Promise<void> {
  const run = daemonRunner(s);
  collect(into, await run({ scenarios: ['screen-simple', 'screen-complex', 'stocks-mixed'] }));
  // The same screens answered from the result cache (identical bodies).
  collect(into, await run({ scenarios: ['screen-simple'], cache: true }), 'screen-simple', CACHE_ON.simple);
  collect(into, await run({ scenarios: ['screen-complex'], cache: true }), 'screen-complex', CACHE_ON.complex);
  collect(into, await run({ scenarios: ['screen-simple'], rate: s.plan.fixedRate.simple }));
  collect(into, await run({ scenarios: ['screen-complex'], rate: s.plan.fixedRate.complex }));
  collect(into, await run({ scenarios: ['auth-login'], connections: s.plan.loginConnections }));
  collect(into, await run({ scenarios: ['rate-limit'] }));
}

async function runWsScenarios(s: Stage, into: Collected): Promise<void> {
  const { plan } = s;
  const run = daemonRunner(s);
  const ws = { connections: plan.ws.connections, perConnection: plan.ws.perConnection, stocks: plan.ws.stocks, tickRate: plan.ws.tickRate, workers: plan.ws.workers, tickSource: 'ingest' as const };
  collect(into, await run({ scenarios: ['ws-fanout'], duration: plan.ws.duration, ws }));
  collect(into, await run({ scenarios: ['ws-reconnect-storm'], duration: plan.ws.duration, ws, storm: { clients: plan.storm.clients, perConnection: plan.storm.perConnection, downtime: plan.storm.downtime } }));
}

async function runBaselines(s: Stage, into: Collected): Promise<void> {
  const { plan } = s;
  const hooks = { signal: s.signal, onProgress: progressLogger(s.io) };
  const http = await runLoadtest({ url: s.child.urls.http!, scenarios: ['http-baseline'], duration: plan.rest.duration, warmup: plan.rest.warmup, connections: plan.rest.connections }, hooks);
  collect(into, http, 'http-baseline', LABELS.httpBaseline, true);
  const ws = await runLoadtest(
    {
      url: s.child.urls.ws!, scenarios: ['ws-fanout'], duration: plan.ws.duration,
      // The bare server ignores the token; giving one keeps the scenario from registering a user there.
      token: 'bare-ws-needs-no-token',
      ws: { connections: plan.ws.connections, perConnection: plan.ws.perConnection, codes: ['005930'], workers: plan.ws.workers, tickSource: 'feed' },
    },
    hooks,
  );
  collect(into, ws, 'ws-fanout', LABELS.wsBaseline, true);
}

/** Interleaved rounds of the limiter comparison (each side once per round; the bench box is noisy). */
const LIMITER_ROUNDS = 3;

async function compareLimiter(on: Stage, off: BenchChild, redisPid: number | null, into: Collected): Promise<void> {
  const { plan } = on;
  const runs: Record<'on' | 'off', ReportRow[][]> = { on: [], off: [] };
  for (let round = 0; round < LIMITER_ROUNDS; round++) {
    for (const [side, child] of [['on', on.child], ['off', off]] as const) {
      const cpu = cpuPerRequestWatch({ daemon: child.pid, redis: redisPid }, progressLogger(on.io));
      const report = await runLoadtest(
        { url: child.urls.http!, scenarios: ['auth-get'], admin: on.admin, duration: plan.rest.duration, warmup: plan.rest.warmup, connections: plan.rest.connections },
        { signal: on.signal, onProgress: cpu.listener },
      );
      const label = side === 'on' ? LABELS.limiterOn : LABELS.limiterOff;
      const relabelled = relabel(report, 'auth-get', label);
      into.scenarios.push(...relabelled.scenarios);
      for (const n of report.notes) into.notes.add(n);
      runs[side].push([...relabelled.rows, ...serverCpuRows(label, cpu.result())]);
    }
  }
  into.rows.push(...averageRuns(runs.on, LABELS.limiterOn), ...averageRuns(runs.off, LABELS.limiterOff));
}

/** The request path beside a bare express app doing the same I/O (see bench/request-path.ts). */
async function runRequestPath(s: Stage, off: BenchChild, into: Collected): Promise<void> {
  const api = createApiClient(s.child.urls.http!);
  const token = await adminLogin(api, s.admin.email, s.admin.password);
  const answer = async (method: string, path: string, body?: unknown) =>
    (await fetch(s.child.urls.http! + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json();
  const me = (await answer('GET', '/api/v1/users/me')) as { data: { id: string } };
  // The admin (enterprise) gets a custom limit no run can reach: the limiter still counts every request.
  await answer('PATCH', `/api/v1/admin/users/${me.data.id}`, { rate_limit_per_hour: 1e9 });
  const bare = await startChild({ role: 'bare-express', options: { screen: await answer('POST', '/api/v1/screen', complexBodies(false).shapeA()), me: await answer('GET', '/api/v1/users/me') } });
  try {
    const rounds = s.plan.name === 'full' ? 3 : 1;
    s.io.err(`▶ request path: ${rounds} interleaved rounds against a bare express app\n`);
    into.rows.push(...(await runRequestPathBench({ on: s.child, off, bare, token }, { rounds, duration: s.plan.rest.duration, connections: s.plan.rest.connections, signal: s.signal, progress: s.io.err })));
  } finally {
    await bare.close();
  }
}

/** Alert evaluation in process (the daemon's evaluator) and through POST /admin/ticks. */
async function runAlertBench(s: Stage, dataDir: string, into: Collected): Promise<void> {
  const { plan } = s;
  s.io.err(`▶ alert evaluation: ${plan.alerts.count.toLocaleString('en-US')} alerts, in process\n`);
  const stocks = await loadAlertStocks({ data_dir: dataDir });
  into.rows.push(...alertEvaluationRows(await runAlertEvaluationBench(stocks, { alerts: plan.alerts.count, ticks: plan.alerts.ticks })));
  if (s.signal.aborted) return;
  s.io.err('▶ alert evaluation: through POST /admin/ticks, without then with the alerts\n');
  const api = createApiClient(s.child.urls.http!);
  const result = await runAlertTickBench({
    api, adminToken: await adminLogin(api, s.admin.email, s.admin.password), codes: stocks.map((x) => x.code),
    alerts: plan.alerts.count, seconds: plan.alerts.seconds, batch: plan.alerts.batch, inFlight: plan.alerts.inFlight, signal: s.signal,
  });
  into.rows.push(...alertTickRows(result));
}

/** The real KRX folder: BENCH_KRX (empty: none), else the test fixtures' copy (test/fixtures/krx) when the checkout has it. */
export function krxFolder(env: NodeJS.ProcessEnv, root = packageRoot()): string | null {
  if (env.BENCH_KRX !== undefined) return env.BENCH_KRX === '' ? null : resolve(env.BENCH_KRX);
  const fixtures = join(root, 'test', 'fixtures', 'krx');
  return existsSync(fixtures) ? fixtures : null;
}

async function withDaemon<T>(settings: BenchDaemonSettings, wsClients: number, body: (child: BenchChild) => Promise<T>): Promise<T> {
  const child = await startChild({ role: 'daemon', config: benchDaemonConfig(settings) as Record<string, unknown> });
  try {
    // The daemon holds one descriptor per WebSocket client too.
    await ensureFdLimit(wsClients + 1024, child.pid);
    return await body(child);
  } finally {
    await child.close();
  }
}

/** Run the bench; resolves with the exit code (0 done, 1 failed to run, 2 interrupted). */
export async function runBench(io: BenchIO, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<number> {
  const plan = planFor(env);
  const startedAt = new Date();
  const clock = createStepClock();
  const redis = await ensureBenchRedis(env);
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-'));
  const admin = { email: 'bench-admin@example.com', password: randomBytes(12).toString('base64url') };
  const settings: BenchDaemonSettings = {
    dataDir, redisUrl: redis.url, prefix: `stockscreen-bench:${randomUUID().slice(0, 8)}:`, admin, jwtSecret: randomBytes(48).toString('base64url'), rateLimit: true, workers: 1,
  };
  const into: Collected = { rows: [], scenarios: [], notes: new Set() };
  const krx = krxFolder(env);
  try {
    io.err(`bench (${plan.name}): data in ${dataDir}, Redis ${redis.url} prefix ${settings.prefix}\n`);
    await ensureFdLimit(plan.ws.connections + 1024);
    io.err(`loading the sample market in process (${plan.market.stocks} stocks × ${plan.market.days} days)${krx ? ` and the KRX folder ${krx}` : ''}\n`);
    const market = await clock.step('market load', () => runMarketBench({ ...plan.market, krx: krx ?? undefined, sampleDataDir: dataDir }));
    into.rows.push(...marketRows(market, 'no KRX folder: set BENCH_KRX (the checkout has none at test/fixtures/krx)'));
    await withDaemon(settings, plan.ws.connections, async (child) => {
      io.err(`daemon at ${child.urls.http} (pid ${child.pid})\n`);
      await runOnDaemon({ child, admin, plan, signal, io, skipHistory: env.BENCH_HISTORY === '0' }, settings, dataDir, into, clock);
    });
    // The bare ws server sends each client what the daemon run offered it: ticks/s × stocks per client / pool.
    const perClient = (plan.ws.tickRate * plan.ws.perConnection) / plan.ws.stocks;
    if (!signal.aborted) {
      await clock.step('baselines', async () => {
        const baseline = await startChild({ role: 'baseline', options: { messagesPerClientPerSecond: perClient } });
        try {
          await runBaselines({ child: baseline, admin, plan, signal, io }, into);
        } finally {
          await baseline.close();
        }
      });
    }
    into.rows.push(...baselineRows(into.rows), ...limiterRows(into.rows));
    const report = await finish(into, plan, settings, startedAt, signal.aborted, clock.timing(), krx);
    io.out(formatReport(report));
    io.out('\n' + benchSummary(report.rows, report.bench.timing));
    io.err(`results: ${report.bench.results_file} · wall time ${formatDuration(report.bench.timing.total_s)}\n`);
    return signal.aborted ? 2 : 0;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await deletePrefix(redis.url, settings.prefix);
    await redis.stop();
  }
}

/** Everything measured against the bench daemon, step by step. */
async function runOnDaemon(stage: Stage, settings: BenchDaemonSettings, dataDir: string, into: Collected, clock: StepClock): Promise<void> {
  const { plan, signal, io } = stage;
  io.err('timing the screening engine\n');
  into.rows.push(...(await clock.step('engine timing', () => engineRows(dataDir, plan.engineIterations))));
  if (!stage.skipHistory) {
    io.err('timing as-of screens and backtests (BENCH_HISTORY=0 skips)\n');
    into.rows.push(...(await clock.step('history timing', () => historyRows(dataDir, { warmIterations: plan.engineIterations }))));
  }
  await clock.step('REST scenarios', () => runRestScenarios(stage, into));
  // Rate limiter on (this daemon) against off (a second daemon on the same data, otherwise
  // configured alike), interleaved, before the WebSocket load leaves anything behind.
  if (!signal.aborted) {
    const redisPid = await localRedisPid(settings.redisUrl);
    await clock.step('rate limiter on/off', () => withDaemon({ ...settings, rateLimit: false }, 0, (off) => compareLimiter(stage, off, redisPid, into)));
  }
  if (!signal.aborted) await clock.step('request path', () => withDaemon({ ...settings, rateLimit: false }, 0, (off) => runRequestPath(stage, off, into)));
  if (!signal.aborted) await clock.step('WebSocket scenarios', () => runWsScenarios(stage, into));
  // Last on this daemon: the alerts stay active once created.
  if (!signal.aborted) await clock.step('alert evaluation', () => runAlertBench(stage, dataDir, into));
  if (!signal.aborted) await clock.step('live screens', () => runLiveBench(stage, dataDir, into));
}

/** Live-screen evaluation in process (see bench/live-screens.ts). */
async function runLiveBench(s: Stage, dataDir: string, into: Collected): Promise<void> {
  const { live } = s.plan;
  s.io.err(`▶ live screens: ${live.screens.toLocaleString('en-US')} screens, in process (runs ≤ ${live.seconds} s)\n`);
  into.rows.push(...liveScreenRows(await runLiveScreenBench({ data_dir: dataDir }, { ...live, compare: false })));
}

async function finish(into: Collected, plan: BenchPlan, settings: BenchDaemonSettings, startedAt: Date, aborted: boolean, timing: BenchTiming, krx: string | null): Promise<BenchReport> {
  const environment = into.first?.environment ?? { node: process.version, platform: process.platform, cpus: availableParallelism(), memory_mb: 0, open_files_limit: null };
  const rows = [...into.rows, ...timingRows(timing, plan.name, environment.cpus)];
  const report: BenchReport = {
    url: into.first?.url ?? '',
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    aborted,
    pass: runVerdict(into.scenarios, rows),
    environment,
    options: { plan: plan.name },
    scenarios: into.scenarios,
    rows,
    notes: [...into.notes],
    bench: { plan, results_file: null, daemon: { ...benchDaemonConfig(settings), jwt_secret: '(random)', admin_password: '(random)' }, timing, krx_folder: krx },
  };
  report.bench.results_file = resultsFile('', startedAt);
  await saveResults(report.bench.results_file, report);
  return report;
}
