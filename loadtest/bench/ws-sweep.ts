/**
 * `npm run bench:ws` (issue 6's WebSocket figures): one daemon in a child process, a
 * small sample market, then
 * 1. a sweep of ws-fanout runs at a fixed per-client load — every client subscribes to
 *    5 stocks of a 500-stock pool and each stock ticks twice a second, so each client
 *    is offered 10 messages/s and N clients 10·N messages/s — over growing N, to find
 *    the largest connection count whose p99 stays under the spec's 100 ms;
 * 2. the spec's shape at full size: 10,000 clients with deflate negotiated (the default
 *    client), giving memory per connection, connect time, delivered messages/s (≈
 *    100,000 offered) and latency.
 * Ticks enter through POST /admin/ticks; latency is the tick's timestamp at the daemon
 * to its receipt by the client, both on this machine's clock.
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
const KEEP = /^(connections established|connect success|connect time p50|connect time p99|messages delivered\/s|messages offered\/s|latency p50|latency p99|latency max|sequence gaps|disconnects during run|daemon memory per connection)$/;

/** The sweep's connection counts (BENCH_WS_SWEEP="1000,2000,…" to choose). */
function sweepSizes(env: NodeJS.ProcessEnv, quick: boolean): number[] {
  if (env.BENCH_WS_SWEEP) return env.BENCH_WS_SWEEP.split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0);
  return quick ? [100, 200] : [1000, 2000, 4000, 6000, 8000, 10000];
}

/** Run the WebSocket bench; resolves with the exit code (0 done, 2 interrupted). */
export async function runWsBench(io: BenchIO, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<number> {
  // No smaller sweep than quick: tiny runs it too.
  const quick = env.BENCH_SCALE === 'quick' || env.BENCH_SCALE === 'tiny';
  const sizes = sweepSizes(env, quick);
  const full = quick ? 300 : 10_000;
  const duration = quick ? 2 : 10;
  const startedAt = new Date();
  const redis = await ensureBenchRedis(env);
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-ws-'));
  const admin = { email: 'bench-admin@example.com', password: randomBytes(12).toString('base64url') };
  const prefix = `stockscreen-bench-ws:${randomUUID().slice(0, 8)}:`;
  const rows: ReportRow[] = [];
  const scenarios: ScenarioSummary[] = [];
  const largest = Math.max(full, ...sizes);
  const child = await startChild({ role: 'daemon', config: benchDaemonConfig({ dataDir, redisUrl: redis.url, prefix, admin, jwtSecret: randomBytes(48).toString('base64url'), rateLimit: false, workers: 1 }) as Record<string, unknown> });
  try {
    await ensureFdLimit(largest + 1024);
    await ensureFdLimit(largest + 1024, child.pid);
    const api = createApiClient(child.urls.http!);
    io.err(`daemon at ${child.urls.http}; loading a ${POOL}-stock sample market\n`);
    await loadSampleMarket(api, await adminLogin(api, admin.email, admin.password), { stocks: POOL, days: 60, seed: 42 }, (l) => io.err(`${l}\n`));
    const run = async (label: string, clients: number) => {
      io.err(`${label}: ${clients} clients × ${PER_CLIENT} stocks, ${TICK_RATE} ticks/s over ${POOL} stocks\n`);
      const report = await runLoadtest(
        {
          url: child.urls.http!, admin, scenarios: ['ws-fanout'], duration,
          ws: { connections: clients, perConnection: PER_CLIENT, stocks: POOL, tickRate: TICK_RATE, workers: clients > 2000 ? 2 : 1, tickSource: 'ingest' },
        },
        { signal, onProgress: () => undefined },
      );
      const r = relabel(report, 'ws-fanout', label);
      rows.push(...r.rows.filter((x) => KEEP.test(x.metric)));
      scenarios.push(...r.scenarios);
      return r.rows.find((x) => x.metric === 'latency p99')?.measured ?? null;
    };
    let best: number | null = null;
    for (const n of sizes) {
      if (signal.aborted) break;
      const p99 = await run(`sweep ${n.toLocaleString('en-US')}`, n);
      if (p99 !== null && p99 < 100) best = Math.max(best ?? 0, n);
    }
    rows.push({ scenario: 'sweep', metric: 'largest client count with p99 < 100 ms', target: null, measured: best, unit: 'clients', pass: null, note: `of ${sizes.join(', ')}; ${PER_CLIENT} stocks each, 10 messages/s offered per client` });
    if (!signal.aborted) await run(`full ${full.toLocaleString('en-US')}`, full);
  } finally {
    await child.close();
    await deletePrefix(redis.url, prefix);
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const report: Report = {
    url: child.urls.http!, started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), aborted: signal.aborted,
    pass: runVerdict(scenarios, rows),
    environment: { node: process.version, platform: process.platform, cpus: cpus().length, memory_mb: Math.round(totalmem() / 2 ** 20), open_files_limit: null },
    options: { kind: 'ws', pool: POOL, per_client: PER_CLIENT, tick_rate: TICK_RATE, duration_s: duration, sweep: sizes, full },
    scenarios, rows,
    notes: ['Daemon, Redis and the load generator (worker threads) share this machine; the generator alone takes a large share of the two cores at 10,000 clients.'],
  };
  const file = await saveResults(resultsFile('ws', startedAt), report);
  io.out(formatReport(report));
  io.err(`results: ${file}\n`);
  return signal.aborted ? 2 : 0;
}
