/**
 * `npm run bench:storm`: the reconnect storm after a restart, end to end. A daemon in a
 * child process (own Redis prefix, the bench config: connection caps off, ticks by ingest)
 * with a small sample market; the ws-reconnect-storm scenario connects the clients, drops
 * them all, and has them reconnect evenly spread over the window while ticks keep flowing.
 * Reported: first-attempt success, handshake and restore times, restorations, the daemon's
 * RSS and CPU (from /proc) and the tick → client latency during the storm, the kernel's
 * accept-queue overflows and limits, the generator's own event-loop delay, the load average.
 *
 * BENCH_STORM_CLIENTS (10000), BENCH_STORM_WINDOW (10 s), BENCH_STORM_ROUNDS (1),
 * BENCH_STORM_TICK_RATE (100) choose the size; BENCH_SCALE=quick for a smoke run.
 * BENCH_STORM_BASELINE=<dist folder of another build> runs that build's daemon too, round by
 * round interleaved with this one (the machine is shared: compare rows of the same round).
 * The daemons log errors only (their warnings, one per unsaved session when Redis is slow,
 * would bury the table; BENCH_STORM_LOG_LEVEL=warn shows them).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApiClient } from '../api.js';
import { ensureFdLimit } from '../fd-limit.js';
import { formatReport, runVerdict } from '../report.js';
import { runLoadtest } from '../runner.js';
import type { Report, ReportRow, ScenarioSummary } from '../types.js';
import { startChild, type BenchChild } from './children.js';
import { relabel } from './compare.js';
import { adminLogin, loadSampleMarket } from './market.js';
import { resultsFile, saveResults } from './paths.js';
import { benchDaemonConfig } from './plan.js';
import type { BenchIO } from './run-bench.js';
import { deletePrefix, ensureBenchRedis } from './redis.js';

const POOL = 500;
const PER_CLIENT = 5;
/**
 * Ticks per second over the pool while the clients are connected: 100, so each client is
 * offered one update a second (10,000 messages/s at 10,000 clients), a steady state inside
 * what the gateway delivers on this machine (see bench:ws), so that the storm is what is
 * measured. BENCH_STORM_TICK_RATE to choose.
 */
const TICK_RATE = 100;

const positive = (text: string | undefined, fallback: number) => (Number(text) > 0 ? Number(text) : fallback);

interface Side {
  label: string;
  child: BenchChild;
  prefix: string;
  dataDir: string;
  admin: { email: string; password: string };
}

async function startSide(label: string, entry: URL | undefined, redisUrl: string, logLevel: string, clients: number, io: BenchIO): Promise<Side> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-storm-'));
  const admin = { email: 'bench-admin@example.com', password: randomBytes(12).toString('base64url') };
  const prefix = `stockscreen-bench-storm:${randomUUID().slice(0, 8)}:`;
  const config = { ...benchDaemonConfig({ dataDir, redisUrl, prefix, admin, jwtSecret: randomBytes(48).toString('base64url'), rateLimit: false, workers: 1 }), log_level: logLevel };
  const child = await startChild({ role: 'daemon', config: config as Record<string, unknown> }, 60_000, entry);
  await ensureFdLimit(clients + 1024, child.pid);
  const api = createApiClient(child.urls.http!);
  io.err(`${label} daemon at ${child.urls.http} (pid ${child.pid}); loading a ${POOL}-stock sample market\n`);
  await loadSampleMarket(api, await adminLogin(api, admin.email, admin.password), { stocks: POOL, days: 60, seed: 42 }, (l) => io.err(`${l}\n`));
  return { label, child, prefix, dataDir, admin };
}

async function stopSide(s: Side, redisUrl: string): Promise<void> {
  await s.child.close();
  await deletePrefix(redisUrl, s.prefix);
  await rm(s.dataDir, { recursive: true, force: true });
}

/** Run the storm bench; resolves with the exit code (0 done, 1 a target failed, 2 interrupted). */
export async function runStormBench(io: BenchIO, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<number> {
  const quick = env.BENCH_SCALE === 'quick' || env.BENCH_SCALE === 'tiny';
  const clients = Math.floor(positive(env.BENCH_STORM_CLIENTS, quick ? 500 : 10_000));
  const window = positive(env.BENCH_STORM_WINDOW, quick ? 1 : 10);
  const rounds = Math.floor(positive(env.BENCH_STORM_ROUNDS, 1));
  const tickRate = positive(env.BENCH_STORM_TICK_RATE, TICK_RATE);
  const logLevel = env.BENCH_STORM_LOG_LEVEL ?? 'error';
  const baseline = env.BENCH_STORM_BASELINE ? pathToFileURL(resolve(env.BENCH_STORM_BASELINE, 'loadtest/bench/child-entry.js')) : undefined;
  const startedAt = new Date();
  const redis = await ensureBenchRedis(env);
  const rows: ReportRow[] = [];
  const scenarios: ScenarioSummary[] = [];
  const sides: Side[] = [];
  let url = '';
  try {
    await ensureFdLimit(clients + 1024);
    if (baseline) sides.push(await startSide('baseline', baseline, redis.url, logLevel, clients, io));
    sides.push(await startSide(baseline ? 'this build' : 'daemon', undefined, redis.url, logLevel, clients, io));
    url = sides.at(-1)!.child.urls.http!;
    for (let round = 1; round <= rounds && !signal.aborted; round++) {
      for (const side of sides) {
        if (signal.aborted) break;
        const label = `${sides.length > 1 ? `${side.label}: ` : ''}storm ${clients.toLocaleString('en-US')} in ${window} s${rounds > 1 ? ` r${round}` : ''}`;
        io.err(`${label}\n`);
        const report = await runLoadtest(
          {
            url: side.child.urls.http!, admin: side.admin, scenarios: ['ws-reconnect-storm'], duration: 2,
            ws: { stocks: POOL, tickRate, tickSource: 'ingest', daemonPid: side.child.pid },
            storm: { clients, perConnection: PER_CLIENT, downtime: 1, window },
          },
          { signal, onProgress: (e) => (e.type === 'phase' ? io.err(`  ${e.phase}${e.detail ? ` (${e.detail})` : ''}\n`) : undefined) },
        );
        const r = relabel(report, 'ws-reconnect-storm', label);
        rows.push(...r.rows);
        scenarios.push(...r.scenarios);
      }
    }
  } finally {
    for (const s of sides) await stopSide(s, redis.url);
    await redis.stop();
  }
  const load = loadavg().map((l) => l.toFixed(2)).join(' ');
  rows.push({ scenario: 'machine', metric: 'load average (1, 5, 15 min) at the end', target: null, measured: null, unit: '', pass: null, note: load });
  const report: Report = {
    url, started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), aborted: signal.aborted,
    pass: runVerdict(scenarios, rows),
    environment: { node: process.version, platform: process.platform, cpus: cpus().length, memory_mb: Math.round(totalmem() / 2 ** 20), open_files_limit: null },
    options: { kind: 'storm', clients, window_s: window, rounds, pool: POOL, per_client: PER_CLIENT, tick_rate: tickRate, baseline: env.BENCH_STORM_BASELINE ?? null },
    scenarios, rows,
    notes: ['Daemon, Redis and the load generator share this machine, with other users: figures are noisy; compare rows of the same round.'],
  };
  const file = await saveResults(resultsFile('storm', startedAt), report);
  io.out(formatReport(report));
  io.err(`results: ${file}\n`);
  return signal.aborted ? 2 : report.pass === false ? 1 : 0;
}
