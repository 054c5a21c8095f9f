/**
 * `npm run bench:sources` (node dist/loadtest/bench-sources.js): a KRX Open API backfill of both
 * markets from a loopback fake (loadtest/bench/krx-fake.ts: the real listed universe, every value
 * a string), through the daemon's own route, queue and worker (in this process, sqlite in a temp
 * dir), and then one daily run.
 *
 * Reported: trading dates, provider calls, wall time (and the part spent computing indicators at
 * the end), database size, and the writes a user got answered meanwhile (a preset created and
 * deleted in a loop: count, errors, p50/p99 latency) — each date is its own short transaction, so
 * writers are served between dates. Then the daily run: its calls and wall time.
 * `BENCH_SOURCES_DAYS` (default 490, about two years) sets how many trading dates.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { parseConfig } from '../daemon/config.js';
import type { JobResult, JobView } from '../daemon/contract/jobs.js';
import { createDaemon } from '../daemon/daemon.js';
import { createLogger } from '../daemon/infra/logger.js';
import { tradingDaysEndingAt } from '../daemon/kernel/krx-calendar.js';
import { runBenchProgram } from './bench/program.js';
import { startBenchKrx } from './bench/krx-fake.js';
import { deletePrefix, ensureBenchRedis } from './bench/redis.js';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const num = (v: string | undefined, d: number) => (v && Number(v) > 0 ? Number(v) : d);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const LAST_DAY = '2026-11-25';

await runBenchProgram(async (io, env) => {
  const DAYS = num(env.BENCH_SOURCES_DAYS, 490);
  const days = tradingDaysEndingAt(LAST_DAY, DAYS + 1);
  const backfill = days.slice(0, -1);
  const daily = days.at(-1)!;
  const redis = await ensureBenchRedis(env);
  const prefix = `bench-sources:${randomUUID().slice(0, 8)}:`;
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-sources-'));
  const key = randomUUID();
  const fake = await startBenchKrx(key);
  const config = parseConfig({
    host: '127.0.0.1', port: 0, redis_url: redis.url, redis_prefix: prefix, data_dir: dataDir, log_level: 'silent',
    jwt_secret: 'bench-secret-bench-secret-bench-secret-0123', workers: 1, feed: 'off', rate_limit: { enabled: false },
    password_scrypt_log_n: 12, admin_email: ADMIN.email, admin_password: ADMIN.password,
    krx_api_url: fake.url, krx_api_key: key, krx_min_interval_ms: 0, sources_schedule: false,
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
  const events = new QueueEvents(jobs.queue.name, { connection: factory.connect('bullmq', 'bench-events'), prefix: `${factory.prefix}bull` });
  await events.waitUntilReady();

  const runSync = async (from: string, to: string): Promise<{ result: JobResult; ms: number; calls: number }> => {
    const before = fake.calls();
    const started = performance.now();
    const res = await call('/api/v1/admin/sources/krx/sync', { method: 'POST', json: { from, to }, token: admin });
    const job = ((await res.json()) as { data: JobView }).data;
    const full = await jobs.queue.getJob(job.id);
    const result = (await full!.waitUntilFinished(events, 3_600_000)) as JobResult;
    return { result, ms: performance.now() - started, calls: fake.calls() - before };
  };

  // Writes while the backfill runs: a preset created and deleted, one after another.
  let writing = true;
  const latencies: number[] = [];
  let writeErrors = 0;
  const writes = (async () => {
    for (let i = 0; writing; i++) {
      const t0 = performance.now();
      const created = await call('/api/v1/screen/presets', { method: 'POST', json: { name: `p${i}`, query: { min_market_cap: 0 } }, token: writer }).catch(() => null);
      if (created?.status === 201) {
        const id = ((await created.json()) as { data: { id: string } }).data.id;
        const deleted = await call(`/api/v1/screen/presets/${id}`, { method: 'DELETE', token: writer }).catch(() => null);
        if (deleted?.status !== 204) writeErrors++;
      } else {
        writeErrors++;
        await created?.text();
      }
      latencies.push(performance.now() - t0);
    }
  })();
  io.err(`backfill of ${backfill.length} trading dates (${backfill[0]} … ${backfill.at(-1)})\n`);
  const big = await runSync(backfill[0]!, backfill.at(-1)!);
  writing = false;
  await writes;
  const sizes = await Promise.all((await readdir(dataDir)).filter((f) => /\.(db|sqlite)(-wal)?$|\.db-wal$/.test(f)).map(async (f) => (await stat(join(dataDir, f))).size));
  const dbMb = sizes.reduce((a, b) => a + b, 0) / 2 ** 20;
  const dailyRun = await runSync(daily, daily);
  latencies.sort((a, b) => a - b);
  const row = (k: string, v: string) => io.out(`${k.padEnd(34)} ${v}\n`);
  row('backfill dates', `${big.result.sync?.loaded ?? 0} loaded of ${backfill.length}`);
  row('backfill provider calls', String(big.calls));
  row('backfill wall time', `${(big.ms / 1000).toFixed(1)} s (${(big.ms / backfill.length).toFixed(0)} ms a date; indicators at the end ${((big.result.indicators?.duration_ms ?? 0) / 1000).toFixed(1)} s)`);
  row('backfill rows', String(big.result.rows_ok));
  row('database size (sqlite + WAL)', `${dbMb.toFixed(0)} MB`);
  row('writes answered during backfill', `${latencies.length} (create+delete pairs), ${writeErrors} errors, p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms, max ${(latencies.at(-1) ?? 0).toFixed(0)} ms`);
  row('daily run', `${dailyRun.calls} calls, ${(dailyRun.ms / 1000).toFixed(1)} s (indicators ${((dailyRun.result.indicators?.duration_ms ?? 0) / 1000).toFixed(1)} s)`);
  await events.close();
  await daemon.close();
  await fake.close();
  await deletePrefix(redis.url, prefix);
  await redis.stop();
  await rm(dataDir, { recursive: true, force: true });
  return 0;
});
