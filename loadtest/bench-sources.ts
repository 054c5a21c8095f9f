/**
 * `npm run bench:sources` (node dist/loadtest/bench-sources.js): each data source's backfill from
 * a loopback fake, through the daemon's own route, queue and worker (in this process, sqlite in a
 * temp dir, one fresh daemon per source), then one daily run.
 * - `krx`: the KRX Open API, both markets (loadtest/bench/krx-fake.ts: the real listed universe,
 *   every value a string), `BENCH_SOURCES_DAYS` trading dates (default 490, about two years);
 * - `fdr`: FinanceDataReader's KRX cache layout (loadtest/bench/fdr-fake.ts), the same dates;
 * - `dart`: OpenDART (loadtest/bench/dart-market.ts: the universe's companies, five report periods
 *   each): the market's stocks first (one KRX date), then the four most recent quarters of every
 *   company (key accounts a hundred per call, one full statement per disclosure), then a daily run
 *   after `BENCH_DART_NEW` (default 50) companies filed a correction: only those are fetched in full.
 *
 * Reported per source: units, provider calls (by service for dart), wall time (and the part spent
 * computing indicators at the end), database size, and the writes a user got answered meanwhile (a
 * preset created and deleted in a loop: count, errors, p50/p99 latency) — each unit is its own
 * short transaction, so writers are served between units; then the daily run's calls and time.
 * The process's CPU time (from /proc/self/stat) and the machine's load average frame each figure.
 * `BENCH_SOURCES` (default `krx,fdr,dart`) picks the sources.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { parseConfig } from '../daemon/config.js';
import type { JobResult, JobView } from '../daemon/contract/jobs.js';
import { createDaemon } from '../daemon/daemon.js';
import { createLogger } from '../daemon/infra/logger.js';
import { tradingDaysEndingAt } from '../daemon/kernel/krx-calendar.js';
import { reportPeriods } from '../daemon/sources/dart/periods.js';
import { kstDate } from '../daemon/sources/status-store.js';
import { startBenchDart } from './bench/dart-market.js';
import { startBenchFdr } from './bench/fdr-fake.js';
import { runBenchProgram } from './bench/program.js';
import { startBenchKrx } from './bench/krx-fake.js';
import { deletePrefix, ensureBenchRedis } from './bench/redis.js';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const num = (v: string | undefined, d: number) => (v && Number(v) > 0 ? Number(v) : d);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const LAST_DAY = '2026-11-25';
const CLK_TCK = 100;

/** User + system CPU seconds of this process so far (/proc/self/stat fields 14 and 15). */
async function cpuSeconds(): Promise<number> {
  const fields = (await readFile('/proc/self/stat', 'utf8')).replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}
const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');

/** One bench daemon on its own data dir and Redis prefix, with an admin and a writer logged in. */
async function benchDaemon(redisUrl: string, extra: Record<string, unknown>) {
  const prefix = `bench-sources:${randomUUID().slice(0, 8)}:`;
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-sources-'));
  const config = parseConfig({
    host: '127.0.0.1', port: 0, redis_url: redisUrl, redis_prefix: prefix, data_dir: dataDir, log_level: 'silent',
    jwt_secret: 'bench-secret-bench-secret-bench-secret-0123', workers: 1, feed: 'off', rate_limit: { enabled: false },
    password_scrypt_log_n: 12, admin_email: ADMIN.email, admin_password: ADMIN.password, sources_schedule: false, ...extra,
  });
  const daemon = createDaemon(config, { logger: createLogger('silent') });
  await daemon.start();
  const base = daemon.url();
  const call = async (path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    return fetch(base + path, { method: init.method ?? 'GET', headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  };
  const login = async (email: string, password: string) =>
    ((await (await call('/api/v1/auth/login', { method: 'POST', json: { email, password } })).json()) as { data: { access_token: string } }).data.access_token;
  const admin = await login(ADMIN.email, ADMIN.password);
  await call('/api/v1/auth/register', { method: 'POST', json: { email: 'writer@example.com', password: 'correct horse battery' } });
  const writer = await login('writer@example.com', 'correct horse battery');
  const { jobs: { market: jobs }, redis: { factory } } = daemon.context();
  const eventsConnection = factory.connect('bullmq', 'bench-events');
  const events = new QueueEvents(jobs.queue.name, { connection: eventsConnection, prefix: `${factory.prefix}bull` });
  await events.waitUntilReady();

  /** One sync through the route, followed to its end. */
  const runSync = async (source: string, body: Record<string, unknown>): Promise<{ result: JobResult; ms: number; cpu: number }> => {
    const started = performance.now();
    const cpu0 = await cpuSeconds();
    const res = await call(`/api/v1/admin/sources/${source}/sync`, { method: 'POST', json: body, token: admin });
    const job = ((await res.json()) as { data: JobView }).data;
    const full = await jobs.queue.getJob(job.id);
    const result = (await full!.waitUntilFinished(events, 3_600_000)) as JobResult;
    return { result, ms: performance.now() - started, cpu: (await cpuSeconds()) - cpu0 };
  };

  /** Run `work` while a user creates and deletes a preset in a loop; the writes' latencies. */
  const withWrites = async <T>(work: () => Promise<T>): Promise<{ value: T; latencies: number[]; errors: number; failures: Map<string, number> }> => {
    let writing = true;
    const latencies: number[] = [];
    let errors = 0;
    // What each failed write answered (status and error code, or the network error): a 503 with
    // Retry-After is the documented answer of a writer that waited its bounded time.
    const failures = new Map<string, number>();
    const failed = async (what: string, res: Response | null) => {
      errors++;
      const code = res ? ((await res.json().catch(() => null)) as { error?: { code?: string } } | null)?.error?.code : undefined;
      const key = res ? `${what} ${res.status}${code ? ` ${code}` : ''}` : `${what} no answer`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    };
    const writes = (async () => {
      for (let i = 0; writing; i++) {
        const t0 = performance.now();
        const created = await call('/api/v1/screen/presets', { method: 'POST', json: { name: `p${i}`, query: { min_market_cap: 0 } }, token: writer }).catch(() => null);
        if (created?.status === 201) {
          const id = ((await created.json()) as { data: { id: string } }).data.id;
          const deleted = await call(`/api/v1/screen/presets/${id}`, { method: 'DELETE', token: writer }).catch(() => null);
          if (deleted?.status !== 204) await failed('delete', deleted);
        } else {
          await failed('create', created);
        }
        latencies.push(performance.now() - t0);
      }
    })();
    try {
      return { value: await work(), latencies: latencies.sort((a, b) => a - b), errors, failures };
    } finally {
      writing = false;
      await writes;
      latencies.sort((a, b) => a - b);
    }
  };

  const dbMb = async () => {
    const sizes = await Promise.all((await readdir(dataDir)).filter((f) => /\.(db|sqlite)(-wal)?$|\.db-wal$/.test(f)).map(async (f) => (await stat(join(dataDir, f))).size));
    return sizes.reduce((a, b) => a + b, 0) / 2 ** 20;
  };

  return {
    runSync, withWrites, dbMb,
    async close() {
      await events.close();
      // QueueEvents leaves a connection it was given open.
      eventsConnection.disconnect();
      await daemon.close();
      await deletePrefix(redisUrl, prefix);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

await runBenchProgram(async (io, env) => {
  const DAYS = num(env.BENCH_SOURCES_DAYS, 490);
  const sources = (env.BENCH_SOURCES ?? 'krx,fdr,dart').split(',').map((s) => s.trim());
  const days = tradingDaysEndingAt(LAST_DAY, DAYS + 1);
  const backfill = days.slice(0, -1);
  const daily = days.at(-1)!;
  const redis = await ensureBenchRedis(env);
  const row = (k: string, v: string) => io.out(`${k.padEnd(36)} ${v}\n`);
  const writesRow = (w: { latencies: number[]; errors: number; failures: Map<string, number> }) =>
    `${w.latencies.length} (create+delete pairs), ${w.errors} errors${w.failures.size ? ` (${[...w.failures].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}, p50 ${pct(w.latencies, 50).toFixed(0)} ms, p99 ${pct(w.latencies, 99).toFixed(0)} ms, max ${(w.latencies.at(-1) ?? 0).toFixed(0)} ms`;

  for (const source of sources.filter((s) => s === 'krx' || s === 'fdr')) {
    const key = randomUUID();
    const krx = source === 'krx' ? await startBenchKrx(key) : null;
    const fdr = source === 'fdr' ? await startBenchFdr() : null;
    const calls = () => krx?.calls() ?? fdr!.calls();
    const d = await benchDaemon(redis.url, krx ? { krx_api_url: krx.url, krx_api_key: key, krx_min_interval_ms: 0 } : { fdr_cache_url: fdr!.url, fdr_min_interval_ms: 0 });
    io.err(`${source}: backfill of ${backfill.length} trading dates (${backfill[0]} … ${backfill.at(-1)}), load ${await loadAverage()}\n`);
    const callsBefore = calls();
    const big = await d.withWrites(() => d.runSync(source, { from: backfill[0]!, to: backfill.at(-1)! }));
    const backfillCalls = calls() - callsBefore;
    const size = await d.dbMb();
    const dailyBefore = calls();
    const dailyRun = await d.runSync(source, { from: daily, to: daily });
    const r = big.value;
    io.out(`\n[${source}] load average at the end ${await loadAverage()}\n`);
    row('backfill dates', `${r.result.sync?.loaded ?? 0} loaded of ${backfill.length}`);
    row('backfill provider calls', String(backfillCalls));
    row('backfill wall time', `${(r.ms / 1000).toFixed(1)} s (${(r.ms / backfill.length).toFixed(0)} ms a date; indicators at the end ${((r.result.indicators?.duration_ms ?? 0) / 1000).toFixed(1)} s); process CPU ${r.cpu.toFixed(1)} s`);
    row('backfill rows', String(r.result.rows_ok));
    row('database size (sqlite + WAL)', `${size.toFixed(0)} MB`);
    row('writes answered during backfill', writesRow(big));
    row('daily run', `${calls() - dailyBefore} calls, ${(dailyRun.ms / 1000).toFixed(1)} s (indicators ${((dailyRun.result.indicators?.duration_ms ?? 0) / 1000).toFixed(1)} s)`);
    await d.close();
    await (krx ?? fdr)!.close();
  }

  if (sources.includes('dart')) {
    const key = randomUUID();
    const dartKey = 'b'.repeat(40);
    const krx = await startBenchKrx(key);
    const today = kstDate(Date.now());
    const periods = reportPeriods(today, today);
    const dart = await startBenchDart(dartKey, periods);
    const d = await benchDaemon(redis.url, { krx_api_url: krx.url, krx_api_key: key, krx_min_interval_ms: 0, dart_api_url: dart.url, dart_api_key: dartKey, dart_min_interval_ms: 0 });
    await d.runSync('krx', { from: daily, to: daily });
    const byService = (from: number, to = dart.calls.length) => {
      const counts = new Map<string, number>();
      for (const c of dart.calls.slice(from, to)) counts.set(c.service, (counts.get(c.service) ?? 0) + 1);
      return [...counts.entries()].map(([s, n]) => `${s} ${n}`).join(', ');
    };
    io.err(`dart: backfill of ${dart.companies.length} companies × ${periods.length} periods, load ${await loadAverage()}\n`);
    const sizeBefore = await d.dbMb();
    const big = await d.withWrites(() => d.runSync('dart', {}));
    const backfillCalls = dart.calls.length;
    const size = await d.dbMb();
    // A daily run after BENCH_DART_NEW companies filed a correction of their latest report (a new receipt number).
    const NEW = num(env.BENCH_DART_NEW, 50);
    const latest = periods.at(-1)!;
    for (const c of dart.companies.slice(0, NEW)) {
      const r = dart.reports.find((x) => x.corp_code === c.corp_code && x.bsns_year === latest.year && x.reprt_code === latest.reprt_code)!;
      r.rcept_no = `${today.replace(/-/g, '')}${r.rcept_no.slice(8)}`;
      r.accounts.영업활동현금흐름 = [1e9, 1e9];
    }
    const dailyFrom = dart.calls.length;
    const dailyRun = await d.runSync('dart', {});
    const r = big.value;
    io.out(`\n[dart] load average at the end ${await loadAverage()}\n`);
    row('backfill companies', `${r.result.sync?.loaded ?? 0} loaded of ${r.result.sync?.total ?? 0} (${periods.length} periods each)`);
    row('backfill provider calls', `${backfillCalls} (${byService(0, backfillCalls)})`);
    row('backfill wall time', `${(r.ms / 1000).toFixed(1)} s (${(r.ms / Math.max(1, r.result.sync?.total ?? 1)).toFixed(1)} ms a company; indicators at the end ${((r.result.indicators?.duration_ms ?? 0) / 1000).toFixed(1)} s); process CPU ${r.cpu.toFixed(1)} s`);
    row('backfill rows', String(r.result.rows_ok));
    row('database growth (sqlite + WAL)', `${(size - sizeBefore).toFixed(0)} MB (to ${size.toFixed(0)} MB)`);
    row('writes answered during backfill', writesRow(big));
    row('daily run', `${NEW} new disclosures: ${dart.calls.length - dailyFrom} calls (${byService(dailyFrom)}), ${(dailyRun.ms / 1000).toFixed(1)} s, ${dailyRun.result.sync?.loaded ?? 0} companies written, ${dailyRun.result.sync?.unchanged ?? 0} unchanged`);
    await d.close();
    await dart.close();
    await krx.close();
  }
  await redis.stop();
  return 0;
});
