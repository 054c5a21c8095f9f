/**
 * `npm run bench:scale` (the scale-out figures): the same screening and WebSocket load
 * against one daemon and against two daemons sharing Redis and the database, on sqlite
 * and on PostgreSQL. Per backend: start daemon A (with a job worker) in a child process,
 * load the sample market through the job API (timed), run screen-simple, screen-complex
 * and ws-fanout on A; start daemon B on the same database and Redis, and run the same
 * load split over A and B at once (REST connections and WebSocket clients halved; ticks
 * ingested through A only — B's clients get them over the Redis bus, as in production).
 * Finally two daemons with the simulator feed measure the feed-leader takeover: the lease
 * holder is SIGKILLed and the time until the other holds the lease and ticks is reported.
 *
 * PostgreSQL: BENCH_PG_URL (default postgres://<OS user>@127.0.0.1:5432/postgres); the
 * bench creates its own database there and drops it afterwards. Without a server the
 * PostgreSQL half is skipped with a note. BENCH_SCALE=quick for a smoke run.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApiClient } from '../api.js';
import { ensureFdLimit } from '../fd-limit.js';
import type { LoadtestOptions } from '../options.js';
import { formatReport, runVerdict } from '../report.js';
import { runLoadtest } from '../runner.js';
import type { Report, ReportRow, ScenarioSummary } from '../types.js';
import { startChild, type BenchChild } from './children.js';
import { relabel } from './compare.js';
import { adminLogin, loadSampleMarket } from './market.js';
import { benchDaemonConfig, planFor, type BenchPlan } from './plan.js';
import { deletePrefix, ensureBenchRedis } from './redis.js';
import type { BenchIO } from './run-bench.js';
import { resultsFile, saveResults } from './paths.js';
import { measureFeedTakeover, takeoverRows } from './takeover.js';

type Backend = 'sqlite' | 'postgres';
interface Storage {
  backend: Backend;
  config: Record<string, unknown>;
  drop(): Promise<void>;
}

const KEEP = /^(failed requests|throughput|latency p50|latency p95|latency p99|connections established|connect success|messages delivered\/s|sequence gaps|daemon memory per connection)$/;

/** A PostgreSQL database of the bench's own, or null (with the reason) when none can be made. */
async function postgresStorage(env: NodeJS.ProcessEnv): Promise<Storage | string> {
  const adminUrl = env.BENCH_PG_URL ?? `postgres://${encodeURIComponent(env.PGUSER ?? userInfo().username)}@127.0.0.1:5432/postgres`;
  const name = `stockscreen_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    return `PostgreSQL skipped: ${(err as Error).message} (set BENCH_PG_URL)`;
  } finally {
    await admin.end().catch(() => undefined);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    backend: 'postgres',
    config: { database_url: url.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function keep(report: Report, label: string): { rows: ReportRow[]; scenarios: ScenarioSummary[] } {
  const rows: ReportRow[] = [];
  const scenarios: ScenarioSummary[] = [];
  for (const s of report.scenarios) {
    const r = relabel(report, s.scenario, `${label} ${s.scenario}`, true);
    scenarios.push(...r.scenarios.filter((x) => x.scenario === `${label} ${s.scenario}`));
    rows.push(...r.rows.filter((x) => x.scenario === `${label} ${s.scenario}` && KEEP.test(x.metric)));
  }
  return { rows, scenarios };
}

/** Sum of one metric over the rows of the given scenarios (null when any is missing). */
function total(rows: readonly ReportRow[], scenarios: readonly string[], metric: string): number | null {
  const values = scenarios.map((s) => rows.find((r) => r.scenario === s && r.metric === metric)?.measured);
  return values.every((v): v is number => typeof v === 'number') ? values.reduce((a, b) => a + b, 0) : null;
}

interface Collected {
  rows: ReportRow[];
  scenarios: ScenarioSummary[];
  notes: string[];
}

async function measureBackend(storage: Storage, plan: BenchPlan, redisUrl: string, io: BenchIO, signal: AbortSignal, into: Collected): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), `stockscreen-scale-${storage.backend}-`));
  const admin = { email: 'bench-admin@example.com', password: randomBytes(12).toString('base64url') };
  const prefix = `stockscreen-scale:${randomUUID().slice(0, 8)}:`;
  const base = { ...benchDaemonConfig({ dataDir, redisUrl, prefix, admin, jwtSecret: randomBytes(48).toString('base64url'), rateLimit: false, workers: 1 }), ...storage.config } as Record<string, unknown>;
  const children: BenchChild[] = [];
  const tag = storage.backend;
  try {
    const a = await startChild({ role: 'daemon', config: base });
    children.push(a);
    await ensureFdLimit(plan.ws.connections + 1024, a.pid);
    const api = createApiClient(a.urls.http!);
    io.err(`${tag}: daemon A at ${a.urls.http}; loading the sample market (${plan.market.stocks} stocks × ${plan.market.days} days)\n`);
    const started = performance.now();
    await loadSampleMarket(api, await adminLogin(api, admin.email, admin.password), plan.market, (l) => io.err(`${l}\n`));
    into.rows.push({ scenario: `${tag} load`, metric: 'sample market load + indicators', target: null, measured: (performance.now() - started) / 1000, unit: 's', pass: null });

    const common: LoadtestOptions = { url: a.urls.http!, admin, duration: plan.rest.duration, warmup: plan.rest.warmup, connections: plan.rest.connections };
    const ws = { connections: plan.ws.connections, perConnection: plan.ws.perConnection, stocks: plan.ws.stocks, tickRate: plan.ws.tickRate, workers: plan.ws.workers, tickSource: 'ingest' as const };
    const hooks = { signal, onProgress: () => undefined };
    const one = `${tag} ×1`;
    for (const scenario of ['screen-simple', 'screen-complex'] as const) {
      io.err(`${one}: ${scenario}\n`);
      const k = keep(await runLoadtest({ ...common, scenarios: [scenario] }, hooks), one);
      into.rows.push(...k.rows);
      into.scenarios.push(...k.scenarios);
    }
    io.err(`${one}: ws-fanout\n`);
    const single = keep(await runLoadtest({ ...common, scenarios: ['ws-fanout'], duration: plan.ws.duration, ws }, hooks), one);
    into.rows.push(...single.rows);
    into.scenarios.push(...single.scenarios);
    if (signal.aborted) return;

    const b = await startChild({ role: 'daemon', config: { ...base, workers: 0 } });
    children.push(b);
    await ensureFdLimit(plan.ws.connections + 1024, b.pid);
    const two = `${tag} ×2`;
    const half = (n: number) => Math.max(1, Math.floor(n / 2));
    for (const scenario of ['screen-simple', 'screen-complex'] as const) {
      io.err(`${two}: ${scenario} on A and B at once\n`);
      const [ra, rb] = await Promise.all([
        runLoadtest({ ...common, scenarios: [scenario], connections: half(plan.rest.connections) }, hooks),
        runLoadtest({ ...common, url: b.urls.http!, scenarios: [scenario], connections: half(plan.rest.connections) }, hooks),
      ]);
      const ka = keep(ra, `${two} A`);
      const kb = keep(rb, `${two} B`);
      into.rows.push(...ka.rows, ...kb.rows);
      into.scenarios.push(...ka.scenarios, ...kb.scenarios);
      const sum = total(into.rows, [`${two} A ${scenario}`, `${two} B ${scenario}`], 'throughput');
      into.rows.push({ scenario: `${two} A+B ${scenario}`, metric: 'throughput', target: null, measured: sum, unit: 'req/s', pass: null });
    }
    io.err(`${two}: ws-fanout, half the clients on each, ticks through A\n`);
    const [wa, wb] = await Promise.all([
      runLoadtest({ ...common, scenarios: ['ws-fanout'], duration: plan.ws.duration, ws: { ...ws, connections: half(plan.ws.connections) } }, hooks),
      runLoadtest({ ...common, url: b.urls.http!, scenarios: ['ws-fanout'], duration: plan.ws.duration, ws: { ...ws, connections: half(plan.ws.connections), tickSource: 'feed' } }, hooks),
    ]);
    const ka = keep(wa, `${two} A`);
    const kb = keep(wb, `${two} B`);
    into.rows.push(...ka.rows, ...kb.rows);
    into.scenarios.push(...ka.scenarios, ...kb.scenarios);
    const sum = total(into.rows, [`${two} A ws-fanout`, `${two} B ws-fanout`], 'messages delivered/s');
    into.rows.push({ scenario: `${two} A+B ws-fanout`, metric: 'messages delivered/s', target: null, measured: sum, unit: 'msg/s', pass: null });
    if (signal.aborted) return;

    // Feed-leader takeover on a fresh pair with the simulator feed (A and B ingest only).
    for (const c of children.splice(0).reverse()) await c.close();
    io.err(`${tag}: feed takeover (two simulator daemons, the leader killed)\n`);
    try {
      into.rows.push(...takeoverRows(tag, await measureFeedTakeover({ config: base, redisUrl, prefix })));
    } catch (err) {
      into.notes.push(`${tag} feed takeover not measured: ${(err as Error).message}`);
    }
  } finally {
    for (const c of children.reverse()) await c.close();
    await deletePrefix(redisUrl, prefix);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Run the scale bench; resolves with the exit code (0 done, 2 interrupted). */
export async function runScaleBench(io: BenchIO, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<number> {
  const plan = planFor(env);
  const startedAt = new Date();
  const redis = await ensureBenchRedis(env);
  const into: Collected = { rows: [], scenarios: [], notes: [] };
  try {
    await ensureFdLimit(plan.ws.connections + 1024);
    const storages: Storage[] = [{ backend: 'sqlite', config: {}, drop: async () => undefined }];
    const postgres = await postgresStorage(env);
    if (typeof postgres === 'string') into.notes.push(postgres);
    else storages.push(postgres);
    for (const storage of storages) {
      try {
        if (!signal.aborted) await measureBackend(storage, plan, redis.url, io, signal, into);
      } finally {
        await storage.drop();
      }
    }
    into.notes.push(
      'Two daemons on one 2-core machine share its cores with each other, Redis, PostgreSQL and the load generator: the ×2 rows show that the load spreads and state is shared, not that capacity doubles (that needs a host per daemon).',
      'Ticks of the ×2 ws-fanout runs enter through daemon A only; clients of B receive them over the Redis bus. Latency is tick time stamped at A to receipt at the client.',
    );
    const report: Report = {
      url: '', started_at: startedAt.toISOString(), finished_at: new Date().toISOString(), aborted: signal.aborted,
      pass: runVerdict(into.scenarios, into.rows),
      environment: { node: process.version, platform: process.platform, cpus: (await import('node:os')).cpus().length, memory_mb: Math.round((await import('node:os')).totalmem() / 2 ** 20), open_files_limit: null },
      options: { plan: plan.name, kind: 'scale' },
      scenarios: into.scenarios,
      rows: into.rows,
      notes: into.notes,
    };
    const file = await saveResults(resultsFile('scale', startedAt), report);
    io.out(formatReport(report));
    io.err(`results: ${file}\n`);
    return signal.aborted ? 2 : 0;
  } finally {
    await redis.stop();
  }
}
