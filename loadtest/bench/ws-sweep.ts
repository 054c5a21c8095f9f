/**
 * `npm run bench:ws`: one daemon in a child process with a small sample
 * market, and a bare `ws` server in another (baseline-servers.ts). For each client count
 * of the sweep (2,000, 5,000 and 10,000 by default) every client subscribes to 5 stocks of
 * a 500-stock pool and is offered 10 messages/s (each stock ticks twice a second, through
 * POST /admin/ticks), deflate negotiated (the default client); then the bare server does
 * the same fan-out to the same clients, interleaved round by round (the machine is shared
 * and noisy). Per run: delivered messages/s, p50/p99 from tick to client, server CPU per
 * delivered message (from /proc), generator CPU, memory per connection, gaps.
 * BENCH_SCALE=quick for a smoke run, BENCH_WS_SWEEP=2000,5000 to choose the counts,
 * BENCH_WS_ROUNDS=2 for more interleaved rounds, BENCH_WS_DURATION=10 (seconds).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createApiClient } from '../api.js';
import { ensureFdLimit } from '../fd-limit.js';
import { formatReport, runVerdict } from '../report.js';
import { runLoadtest } from '../runner.js';
import type { Report, ReportRow, ScenarioSummary } from '../types.js';
import { startChild } from './children.js';
import { relabel } from './compare.js';
import { adminLogin, loadSampleMarket } from './market.js';
import { resultsFile, saveResults } from './paths.js';
import { benchDaemonConfig } from './plan.js';
import type { BenchIO } from './run-bench.js';
import { deletePrefix, ensureBenchRedis } from './redis.js';

const POOL = 500;
const PER_CLIENT = 5;
/** Ticks per second over the pool: each stock twice a second. */
const TICK_RATE = 2 * POOL;
/** Messages per second offered to each client. */
const RATE_PER_CLIENT = (TICK_RATE * PER_CLIENT) / POOL;
const KEEP = /^(connections established|connect success|messages delivered\/s|messages offered\/s|latency p50|latency p99|latency max|sequence gaps|disconnects during run|daemon memory per connection|daemon CPU per delivered message|daemon CPU|generator CPU|generator CPU per delivered message)$/;

/** The sweep's connection counts (BENCH_WS_SWEEP="1000,2000,…" to choose). */
function sweepSizes(env: NodeJS.ProcessEnv, quick: boolean): number[] {
  if (env.BENCH_WS_SWEEP) return env.BENCH_WS_SWEEP.split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0);
  return quick ? [100, 200] : [2000, 5000, 10000];
}

/** Run the WebSocket bench; resolves with the exit code (0 done, 2 interrupted). */
export async function runWsBench(io: BenchIO, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<number> {
  // No smaller sweep than quick: tiny runs it too.
  const quick = env.BENCH_SCALE === 'quick' || env.BENCH_SCALE === 'tiny';
  const sizes = sweepSizes(env, quick);
  const duration = Number(env.BENCH_WS_DURATION) > 0 ? Number(env.BENCH_WS_DURATION) : quick ? 2 : 10;
  const rounds = Number(env.BENCH_WS_ROUNDS) > 0 ? Math.floor(Number(env.BENCH_WS_ROUNDS)) : 1;
  const startedAt = new Date();
  const redis = await ensureBenchRedis(env);
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-ws-'));
  const admin = { email: 'bench-admin@example.com', password: randomBytes(12).toString('base64url') };
  const prefix = `stockscreen-bench-ws:${randomUUID().slice(0, 8)}:`;
  const rows: ReportRow[] = [];
  const scenarios: ScenarioSummary[] = [];
  const largest = Math.max(...sizes);
  const child = await startChild({ role: 'daemon', config: benchDaemonConfig({ dataDir, redisUrl: redis.url, prefix, admin, jwtSecret: randomBytes(48).toString('base64url'), rateLimit: false, workers: 1 }) as Record<string, unknown> });
  const bare = await startChild({ role: 'baseline', options: { messagesPerClientPerSecond: RATE_PER_CLIENT } });
  try {
    await ensureFdLimit(largest + 1024);
    for (const pid of [child.pid, bare.pid]) await ensureFdLimit(largest + 1024, pid);
    const api = createApiClient(child.urls.http!);
    io.err(`daemon at ${child.urls.http} (pid ${child.pid}), bare ws at ${bare.urls.ws} (pid ${bare.pid}); loading a ${POOL}-stock sample market\n`);
    await loadSampleMarket(api, await adminLogin(api, admin.email, admin.password), { stocks: POOL, days: 60, seed: 42 }, (l) => io.err(`${l}\n`));
    const workers = (clients: number) => (clients > 2000 ? 2 : 1);
    const daemonRun = (clients: number) =>
      runLoadtest(
        {
          url: child.urls.http!, admin, scenarios: ['ws-fanout'], duration,
          ws: { connections: clients, perConnection: PER_CLIENT, stocks: POOL, ratePerClient: RATE_PER_CLIENT, workers: workers(clients), tickSource: 'ingest', daemonPid: child.pid },
        },
        { signal, onProgress: () => undefined },
      );
    const bareRun = (clients: number) =>
      runLoadtest(
        {
          url: bare.urls.ws!, scenarios: ['ws-fanout'], duration, token: 'bare-ws-needs-no-token',
          ws: { connections: clients, perConnection: PER_CLIENT, codes: ['005930'], workers: workers(clients), tickSource: 'feed', daemonPid: bare.pid },
        },
        { signal, onProgress: () => undefined },
      );
    let best: number | null = null;
    for (let round = 1; round <= rounds && !signal.aborted; round++) {
      for (const n of sizes) {
        for (const [side, run] of [['daemon', daemonRun], ['bare ws', bareRun]] as const) {
          if (signal.aborted) break;
          const label = `${side} ${n.toLocaleString('en-US')}${rounds > 1 ? ` r${round}` : ''}`;
          io.err(`${label}: ${n} clients × ${RATE_PER_CLIENT} msg/s\n`);
          const r = relabel(await run(n), 'ws-fanout', label);
          rows.push(...r.rows.filter((x) => KEEP.test(x.metric)));
          scenarios.push(...r.scenarios);
          const p99 = r.rows.find((x) => x.metric === 'latency p99')?.measured ?? null;
          if (side === 'daemon' && p99 !== null && p99 < 100) best = Math.max(best ?? 0, n);
        }
      }
    }
    rows.push({ scenario: 'sweep', metric: 'largest client count with p99 < 100 ms', target: null, measured: best, unit: 'clients', pass: null, note: `daemon, of ${sizes.join(', ')}; ${PER_CLIENT} stocks each, ${RATE_PER_CLIENT} messages/s offered per client` });
  } finally {
    await bare.close();
    await child.close();
    await deletePrefix(redis.url, prefix);
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const report: Report = {
    url: child.urls.http!, started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), aborted: signal.aborted,
    pass: runVerdict(scenarios, rows),
    environment: { node: process.version, platform: process.platform, cpus: cpus().length, memory_mb: Math.round(totalmem() / 2 ** 20), open_files_limit: null },
    options: { kind: 'ws', pool: POOL, per_client: PER_CLIENT, tick_rate: TICK_RATE, rate_per_client: RATE_PER_CLIENT, duration_s: duration, sweep: sizes, rounds },
    scenarios, rows,
    notes: ['Daemon, bare ws server, Redis and the load generator (worker threads) share this machine, with other users: figures are noisy; compare rows of the same round.'],
  };
  const file = await saveResults(resultsFile('ws', startedAt), report);
  io.out(formatReport(report));
  io.err(`results: ${file}\n`);
  return signal.aborted ? 2 : 0;
}
