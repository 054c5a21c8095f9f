/**
 * `npm run bench:as-of-steps` (node dist/loadtest/bench-as-of-steps.js): what one as-of screen of
 * every field costs the daemon, one request at a time, step by step, so each figure belongs to one
 * kind of work: a freshly spawned `stockscreend` on the sample market, a pro account, then
 *
 * 1. idle for 3 s (the floor);
 * 2. the first as-of screen (one field): the daemon reads the market history, then builds the
 *    common series in the background;
 * 3. idle for 20 s (that background build);
 * 4. BENCH_AS_OF_STEPS_DATES (3) screens of every field, per_page 500, each on a new date.
 *
 * For each step: its status, wall time, the daemon's CPU from /proc, the worst of `/health`
 * probed every 20 ms meanwhile, the daemon's RSS after it and the load average. Loopback only.
 *
 * BENCH_AS_OF_STEPS_BUILD: the repository root to run (with bin/ and a built dist/; default this
 * one), so another build can be measured the same way. BENCH_ABUSE_STOCKS (2,700),
 * BENCH_ABUSE_DAYS (500), REDIS_URL.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runMarketBench } from './bench/market-load.js';
import { packageRoot } from './bench/paths.js';
import { deletePrefix } from './bench/redis.js';
import { processCpuMs } from './proc-cpu.js';
import { startDaemon } from './bench/spawned-daemon.js';
import { INDICATOR_IDS } from '../daemon/indicators/registry.js';

const BUILD = resolve(process.env.BENCH_AS_OF_STEPS_BUILD ?? packageRoot());
const DATES = ['2025-04-01', '2025-04-02', '2025-04-03', '2025-04-04', '2025-04-07'].slice(0, Number(process.env.BENCH_AS_OF_STEPS_DATES ?? 3));
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `bench-as-of-steps:${process.pid}:`;

type Json = Record<string, any>;

const dir = await mkdtemp(join(tmpdir(), 'stockscreen-as-of-steps-'));
await runMarketBench({ stocks: Number(process.env.BENCH_ABUSE_STOCKS ?? 2700), days: Number(process.env.BENCH_ABUSE_DAYS ?? 500), seed: 42, sampleDataDir: dir });
const daemon = await startDaemon(BUILD, dir, { redisUrl: REDIS, prefix, rateLimit: false });
const { url, pid } = daemon;
try {
  const call = async (path: string, init: { method?: string; token?: string; json?: unknown } = {}): Promise<{ status: number; body: Json }> => {
    const res = await fetch(url + path, {
      method: init.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
  };
  const login = async (email: string, password: string) => (await call('/api/v1/auth/login', { method: 'POST', json: { email, password } })).body.data.access_token as string;
  const admin = await login('ops@example.com', 'ops-password-1');
  await call('/api/v1/auth/register', { method: 'POST', json: { email: 'pro@example.com', password: 'correct horse battery' } });
  const id = (await call('/api/v1/users/me', { token: await login('pro@example.com', 'correct horse battery') })).body.data.id as string;
  await call(`/api/v1/admin/users/${id}`, { method: 'PATCH', token: admin, json: { tier: 'pro' } });
  // The tier is read at login.
  const token = await login('pro@example.com', 'correct horse battery');

  let worst = 0;
  let probes = 0;
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const t = performance.now();
      await fetch(`${url}/health`).then((r) => r.text()).catch(() => '');
      worst = Math.max(worst, performance.now() - t);
      probes++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const step = async (name: string, work: () => Promise<string>) => {
    worst = 0;
    probes = 0;
    const cpu0 = processCpuMs(pid) ?? 0;
    const t0 = performance.now();
    const status = await work();
    const cpu = (processCpuMs(pid) ?? cpu0) - cpu0;
    process.stdout.write(
      `${name.padEnd(34)} ${status.padEnd(22)} wall ${(performance.now() - t0).toFixed(0).padStart(6)} ms  daemon CPU ${cpu.toFixed(0).padStart(6)} ms  ` +
        `worst /health ${worst.toFixed(0).padStart(5)} ms (${probes} probes)  RSS ${rssMb().toFixed(0)} MB  load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}\n`,
    );
  };
  const idle = (ms: number) => async () => {
    await new Promise((r) => setTimeout(r, ms));
    return '';
  };
  const screen = (json: Json) => async () => {
    const r = await call('/api/v1/screen', { method: 'POST', token, json });
    return `${r.status} ${r.body.error?.code ?? ''}`;
  };
  process.stdout.write(`build ${BUILD}\n`);
  await step('idle 3 s', idle(3000));
  await step('first as-of screen (history read)', screen({ fields: ['per'], per_page: 5, as_of: '2025-06-02' }));
  await step('idle 20 s (common series built)', idle(20_000));
  for (const date of DATES) await step(`every field, 500 rows, ${date}`, screen({ fields: [...INDICATOR_IDS], per_page: 500, as_of: date }));
  probing = false;
  await prober;
} finally {
  await daemon.stop();
  await deletePrefix(REDIS, prefix).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
