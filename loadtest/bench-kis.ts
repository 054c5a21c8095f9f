/**
 * `npm run bench:kis` (node dist/loadtest/bench-kis.js): the KIS feed of one daemon (a child
 * process, `feed: kis`) against the local fake of the KIS REST and WebSocket APIs (this process,
 * on loopback; test/fakes/kis-fake.ts), on a sample market of `BENCH_KIS_STOCKS` (2,700) stocks.
 *
 * 1. Sweep: `BENCH_KIS_SWEEPS` (3) whole-market sweeps at `BENCH_KIS_RATE` (20) calls a second
 *    (the fake allows as many): calls per sweep, wall time, stocks changed per sweep (the bench
 *    moves `BENCH_KIS_MOVE_PCT` (10) % of the fake market's prices before each), and the daemon's
 *    CPU per sweep from /proc (the calls, parsing, the quote writes, the bus).
 * 2. Latency: `BENCH_KIS_SAMPLES` (100) trades of a registered code sent by the fake, one at a
 *    time: from the fake's send to the `price_update` arriving at a WebSocket client of the daemon.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startKisFake } from '../test/fakes/kis-fake.js';
import { roundToTick, priceLimits } from '../daemon/kernel/tick-size.js';
import { createApiClient } from './api.js';
import { startChild } from './bench/children.js';
import { adminLogin, loadSampleMarket } from './bench/market.js';
import { runBenchProgram } from './bench/program.js';
import { deletePrefix, ensureBenchRedis } from './bench/redis.js';
import { processCpuMs } from './proc-cpu.js';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const num = (v: string | undefined, d: number) => (v && Number(v) > 0 ? Number(v) : d);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

await runBenchProgram(async (io, env) => {
  const STOCKS = num(env.BENCH_KIS_STOCKS, 2700);
  const SWEEPS = num(env.BENCH_KIS_SWEEPS, 3);
  const RATE = num(env.BENCH_KIS_RATE, 20);
  const MOVE = num(env.BENCH_KIS_MOVE_PCT, 10) / 100;
  const PAUSE_MS = 3_000;
  const SAMPLES = num(env.BENCH_KIS_SAMPLES, 100);
  const KEY = 'PSbenchAppKey';
  const SECRET = 'bench-app-secret-0123456789';
  const redis = await ensureBenchRedis(env);
  const prefix = `bench-kis:${randomUUID().slice(0, 8)}:`;
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-kis-'));
  const fake = await startKisFake({ appKey: KEY, appSecret: SECRET, callsPerSecond: RATE, pingMs: 5_000 });
  const daemon = await startChild({
    role: 'daemon',
    config: {
      host: '127.0.0.1', port: 0, data_dir: dataDir, redis_url: redis.url, redis_prefix: prefix, log_level: 'warn', log_format: 'json',
      jwt_secret: 'bench-secret-bench-secret-bench-secret-00', admin_email: ADMIN.email, admin_password: ADMIN.password, password_scrypt_log_n: 12,
      workers: 1, feed: 'kis', market_clock: 'always-open', rate_limit: { enabled: false }, metrics_public: true,
      kis_app_key: KEY, kis_app_secret: SECRET, kis_rest_url: fake.restUrl, kis_ws_url: fake.wsUrl, kis_rest_calls_per_s: RATE,
      // A pause between sweeps lets the bench move the market between two sweeps, not during one.
      kis_sweep_pause_ms: PAUSE_MS,
    },
  });
  const base = daemon.urls.http!;
  const api = createApiClient(base);
  const call = async (method: string, path: string, token: string | undefined, json?: unknown) =>
    (await api.ok<{ data: any; access_token?: string } | null>(`/api/v1${path}`, { method, token, json })) ?? undefined;
  const metrics = async () => (await fetch(`${base}/metrics`)).text();
  const rows: string[] = [];
  try {
    const admin = await adminLogin(api, ADMIN.email, ADMIN.password);
    io.err(`loading a sample market of ${STOCKS} stocks\n`);
    await loadSampleMarket(api, admin, { stocks: STOCKS, days: 30, seed: 7 }, (line) => io.err(`${line}\n`));
    const listed: { code: string; name: string; close: number }[] = [];
    for (let page = 1; ; page++) {
      const rowsOfPage = (await call('POST', '/screen', admin, { per_page: 500, page, sort: [{ field: 'code', direction: 'asc' }] }))!.data as { code: string; name: string; close: number }[];
      listed.push(...rowsOfPage);
      if (rowsOfPage.length < 500) break;
    }
    const stocks = listed.filter((s) => s.close > 0);
    for (const s of stocks) fake.market.set(s.code, { name: s.name, price: s.close, prevClose: s.close, volume: 1000, open: s.close, high: s.close, low: s.close });
    io.err(`${stocks.length} stocks priced by the fake; waiting for a first complete sweep\n`);
    const sweepsNow = async () => metric(await metrics(), 'stockscreen_kis_sweeps_total');
    const waitSweeps = async (n: number) => {
      while ((await sweepsNow()) < n) await new Promise((r) => setTimeout(r, 100));
    };
    // Two sweeps: the one running when the market was filled may have seen it half-empty.
    await waitSweeps((await sweepsNow()) + 2);

    let step = 0;
    for (let i = 0; i < SWEEPS; i++) {
      step++;
      // Right after a sweep ends the daemon pauses PAUSE_MS: the move lands before the next one starts.
      await waitSweeps((await sweepsNow()) + 1);
      const start = await sweepsNow();
      const moved = Math.round(stocks.length * MOVE);
      for (let k = 0; k < moved; k++) {
        const s = stocks[(k * 7 + step * 13) % stocks.length]!;
        const q = fake.market.get(s.code)!;
        const { lower, upper } = priceLimits(s.close);
        q.price = Math.min(upper, Math.max(lower, roundToTick(s.close * (1 + (((k + step) % 11) - 5 || 1) / 100), 'nearest')));
        q.volume += 10 + step;
      }
      const c0 = fake.stats.multiPriceCalls;
      const cpu0 = processCpuMs(daemon.pid)!;
      await waitSweeps(start + 1);
      const cpu = processCpuMs(daemon.pid)! - cpu0;
      const m = await metrics();
      rows.push(`kis\tsweep ${i + 1}\t${fake.stats.multiPriceCalls - c0} calls for ${stocks.length} codes in ${metric(m, 'stockscreen_kis_last_sweep_seconds').toFixed(2)} s, ${metric(m, 'stockscreen_kis_last_sweep_changes')} stocks changed (${moved} moved by the bench)\tdaemon CPU ${cpu.toFixed(0)} ms (the sweep and the ${PAUSE_MS / 1000} s pause before it)`);
      io.err(`${rows.at(-1)}\n`);
    }
    rows.push(`kis\trate\tat most ${fake.stats.maxCallsInOneSecond} calls in any one second (configured ${RATE}); EGW00201 answers: ${fake.stats.rateLimited}; tokens issued: ${fake.stats.tokenIssues}`);

    // Latency: a client watching one code; the leader registers it for real-time trades.
    const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
    await call('POST', '/auth/register', undefined, { email, password: 'correct horse battery' });
    const token = (await call('POST', '/auth/login', undefined, { email, password: 'correct horse battery' }))!.access_token!;
    const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/ws?token=${token}`);
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const s = stocks[0]!;
    const waiters = new Map<number, (at: number | null) => void>();
    ws.on('message', (data) => {
      const at = performance.now();
      const msg = JSON.parse(data.toString()) as { type: string; messages?: { type: string; code?: string; price?: number; source?: string }[]; code?: string; price?: number; source?: string };
      for (const m of msg.type === 'batch' ? msg.messages! : [msg]) if (m.type === 'price_update' && m.code === s.code && m.source === 'tick') waiters.get(m.price!)?.(at);
    });
    ws.send(JSON.stringify({ type: 'subscribe', subscription_type: 'stock', targets: [s.code] }));
    while (!fake.registered().includes(s.code)) await new Promise((r) => setTimeout(r, 50));
    const lat: number[] = [];
    let lost = 0;
    const { lower, upper } = priceLimits(s.close);
    for (let i = 0; i < SAMPLES; i++) {
      const p = Math.min(upper, Math.max(lower, roundToTick(s.close * (1 + ((i % 20) - 10) / 200 + 0.0001 * i), 'nearest')));
      const price = p === fake.market.get(s.code)!.price ? roundToTick(p + 1, 'up') : p;
      // A trade the daemon did not deliver within 5 s counts as lost (reported), not as a hang.
      const arrived = new Promise<number | null>((resolve) => {
        waiters.set(price, resolve);
        setTimeout(() => resolve(null), 5_000).unref();
      });
      const t0 = performance.now();
      fake.trade(s.code, price, 10);
      const at = await arrived;
      if (at === null) lost++;
      else lat.push(at - t0);
      waiters.delete(price);
    }
    ws.close();
    lat.sort((a, b) => a - b);
    rows.push(`kis\ttrade frame → price_update at a client (${SAMPLES} trades, ws_batch_interval_ms 30)\tp50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms, max ${(lat.at(-1) ?? NaN).toFixed(1)} ms, ${lost} not delivered within 5 s`);
    rows.push(`kis\tmachine\tload average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')} on ${(await import('node:os')).cpus().length} cores`);
    for (const r of rows) io.out(`${r}\n`);
    return 0;
  } finally {
    await daemon.close();
    await fake.close();
    await deletePrefix(redis.url, prefix);
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
