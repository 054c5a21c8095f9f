/**
 * `npm run bench:request-path` (node dist/loadtest/bench-request-path.js): the request-path
 * bench on its own — load the sample market into a temp dir, start a daemon with
 * limits on, one with limits off (same data, same secret) and a bare express app, then run
 * interleaved rounds and print the table. BENCH_SCALE=quick for a smoke run; BENCH_CASES="screen hit"
 * (comma-separated parts of case names) runs only those, e.g. to profile one path with
 * BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof". BENCH_BEFORE_ROOT=<another checkout,
 * built> also runs that build's daemon (limits on, same data) and engine, its screen cases
 * interleaved with this build's: a before/after comparison under the same load on a shared box.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApiClient } from './api.js';
import { formatReport, runVerdict } from './report.js';
import { startChild, type BenchChild } from './bench/children.js';
import { adminLogin } from './bench/market.js';
import { runMarketBench } from './bench/market-load.js';
import { benchDaemonConfig, planFor } from './bench/plan.js';
import { runBenchProgram } from './bench/program.js';
import { deletePrefix, ensureBenchRedis } from './bench/redis.js';
import { runRequestPathBench } from './bench/request-path.js';
import { screenEngineRows } from './bench/engine-timing.js';
import { complexBodies } from './scenarios/screen-bodies.js';

/** Every tier lifted so that only the work of counting is measured, never a 429. */
const LIFTED_TIERS = Object.fromEntries(['free', 'basic', 'pro', 'enterprise'].map((t) => [t, { per_hour: 1e9, per_day: 1e10 }]));

await runBenchProgram(async (io, env, signal) => {
  const plan = planFor(env);
  const redis = await ensureBenchRedis(env);
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-rp-'));
  const admin = { email: 'bench-admin@example.com', password: randomBytes(12).toString('base64url') };
  const settings = { dataDir, redisUrl: redis.url, prefix: `stockscreen-bench:${randomUUID().slice(0, 8)}:`, admin, jwtSecret: randomBytes(48).toString('base64url'), workers: 0 };
  const children: BenchChild[] = [];
  try {
    io.err(`loading the sample market (${plan.market.stocks} stocks × ${plan.market.days} days) into ${dataDir}\n`);
    await runMarketBench({ ...plan.market, sampleDataDir: dataDir });
    const daemon = async (rateLimit: boolean) => {
      const config = benchDaemonConfig({ ...settings, rateLimit });
      const child = await startChild({ role: 'daemon', config: { ...config, rate_limit: { ...config.rate_limit, tiers: LIFTED_TIERS } } });
      children.push(child);
      return child;
    };
    const on = await daemon(true);
    const off = await daemon(false);
    const beforeRoot = env.BENCH_BEFORE_ROOT;
    const beforeDist = beforeRoot ? join(beforeRoot, 'dist', 'loadtest', 'bench') : undefined;
    let before: BenchChild | undefined;
    if (beforeDist) {
      const config = benchDaemonConfig({ ...settings, rateLimit: true });
      before = await startChild({ role: 'daemon', config: { ...config, rate_limit: { ...config.rate_limit, tiers: LIFTED_TIERS } } }, 60_000, pathToFileURL(join(beforeDist, 'child-entry.js')));
      children.push(before);
    }
    const api = createApiClient(on.urls.http!);
    const token = await adminLogin(api, admin.email, admin.password);
    const get = async (method: string, path: string, body?: unknown) =>
      (await fetch(on.urls.http! + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json();
    const bare = await startChild({ role: 'bare-express', options: { screen: await get('POST', '/api/v1/screen', complexBodies(false).shapeA()), me: await get('GET', '/api/v1/users/me') } });
    children.push(bare);
    const rounds = plan.name === 'full' ? 5 : 2;
    io.err(`request path: ${rounds} interleaved rounds of ${plan.rest.duration} s, ${plan.rest.connections} connections\n`);
    // The engine alone on the same market, before the load runs (it is part of a cache miss's CPU).
    const engine = await screenEngineRows(dataDir, plan.engineIterations);
    if (beforeDist) {
      const previous = (await import(pathToFileURL(join(beforeDist, 'engine-timing.js')).href)) as { screenEngineRows: typeof screenEngineRows };
      for (const row of await previous.screenEngineRows(dataDir, plan.engineIterations)) engine.push({ ...row, metric: `${row.metric} (before build)` });
      // This build's once more after it: the two engines' figures bracket the same minutes.
      for (const row of await screenEngineRows(dataDir, plan.engineIterations)) engine.push({ ...row, metric: `${row.metric} (again)` });
    }
    const rows = await runRequestPathBench({ on, off, bare, token, ...(before ? { before } : {}) }, { rounds, duration: plan.rest.duration, connections: plan.rest.connections, signal, progress: io.err, only: env.BENCH_CASES?.split(',').map((c) => c.trim()) });
    const now = new Date().toISOString();
    io.out(formatReport({
      url: on.urls.http!, started_at: now, finished_at: now, aborted: signal.aborted, pass: runVerdict([], rows),
      environment: { node: process.version, platform: process.platform, cpus: 0, memory_mb: 0, open_files_limit: null }, options: { plan: plan.name }, scenarios: [], rows: [...engine, ...rows], notes: [],
    }));
    return signal.aborted ? 2 : 0;
  } finally {
    for (const c of children) await c.close();
    await rm(dataDir, { recursive: true, force: true });
    await deletePrefix(redis.url, settings.prefix);
    await redis.stop();
  }
});
