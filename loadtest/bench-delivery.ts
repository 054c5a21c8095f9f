/**
 * `npm run bench:delivery` (node dist/loadtest/bench-delivery.js): notification deliveries of one
 * daemon (a child process) to a local Standard Webhooks receiver (this process, on loopback).
 *
 * 1. Throughput: `BENCH_DELIVERY_ALERTS` (2,000) one-shot price alerts on 200 stocks, spread over
 *    20 webhook channels; one batch of ticks fires them all; deliveries per second until the
 *    receiver has every one, and the daemon's CPU per delivery from /proc (the firing, the outbox,
 *    the queue jobs, signing and the POST), against a baseline child doing only the signed POSTs
 *    at the same concurrency. `BENCH_DELIVERY_ROUNDS` (2) rounds, interleaved with the baseline.
 * 2. Latency: a recurring alert fired `BENCH_DELIVERY_SAMPLES` (100) times, one at a time: the time
 *    from posting the tick to the webhook's arrival, p50 and p99. The daemon runs with
 *    `delivery_group_wait_ms` 0; with the default 5 s group wait every delivery waits 5 s more.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createApiClient } from './api.js';
import { startChild } from './bench/children.js';
import { adminLogin, loadSampleMarket } from './bench/market.js';
import { runBenchProgram } from './bench/program.js';
import { deletePrefix, ensureBenchRedis } from './bench/redis.js';
import type { BaselineRun } from './bench/webhook-baseline.js';
import { processCpuMs } from './proc-cpu.js';
import { roundToTick } from '../daemon/kernel/tick-size.js';

const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const num = (v: string | undefined, d: number) => (v && Number(v) > 0 ? Number(v) : d);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

await runBenchProgram(async (io, env) => {
  const ALERTS = num(env.BENCH_DELIVERY_ALERTS, 2000);
  const ROUNDS = num(env.BENCH_DELIVERY_ROUNDS, 2);
  const SAMPLES = num(env.BENCH_DELIVERY_SAMPLES, 100);
  const STOCKS = 200;
  const CHANNELS = 20;
  const WORKERS = num(env.BENCH_DELIVERY_WORKERS, 16);
  const redis = await ensureBenchRedis(env);
  const prefix = `bench-delivery:${randomUUID().slice(0, 8)}:`;
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-delivery-'));

  // The receiver: verifies each signature (so the bench cannot pass with unsigned requests) and resolves waiters.
  const secrets = new Map<string, string>();
  let received = 0;
  let fromDaemon = 0;
  let verified = 0;
  const waiters: { until: number; resolve: () => void }[] = [];
  const byCode = new Map<string, (at: number) => void>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString();
      const secret = secrets.get(req.url ?? '');
      if (secret) {
        fromDaemon++;
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
          verified++;
        } catch {
          // counted as unverified: the bench fails
        }
      }
      received++;
      const code = /"code":"(\d{6})"/.exec(body)?.[1];
      if (code) byCode.get(code)?.(at);
      res.writeHead(204).end();
      for (const w of [...waiters]) if (received >= w.until) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const receivedAll = (until: number) => new Promise<void>((resolve) => (received >= until ? resolve() : waiters.push({ until, resolve })));

  const daemon = await startChild({
    role: 'daemon',
    config: {
      host: '127.0.0.1', port: 0, data_dir: dataDir, redis_url: redis.url, redis_prefix: prefix, log_level: 'warn', log_format: 'json',
      jwt_secret: 'bench-secret-bench-secret-bench-secret-00', admin_email: ADMIN.email, admin_password: ADMIN.password, password_scrypt_log_n: 12,
      workers: 1, feed: 'ingest', market_clock: 'always-open', rate_limit: { enabled: false }, webhook_allow_private: true,
      delivery_group_wait_ms: 0, delivery_workers: WORKERS, alert_caps: { free: null }, channel_caps: { free: null }, ws_history: 1_000_000,
    },
  });
  const base = daemon.urls.http!;
  const api = createApiClient(base);
  const call = async (method: string, path: string, token: string | undefined, json?: unknown) =>
    (await api.ok<{ data: any; access_token?: string } | null>(`/api/v1${path}`, { method, token, json })) ?? undefined;
  try {
    const admin = await adminLogin(api, ADMIN.email, ADMIN.password);
    io.err(`loading a sample market of ${STOCKS} stocks\n`);
    await loadSampleMarket(api, admin, { stocks: STOCKS, days: 40, seed: 7 }, (line) => io.err(`${line}\n`));
    await new Promise((r) => setTimeout(r, 1000));
    const stocks = ((await call('GET', '/stocks?limit=500', admin))!.data as { code: string }[]).map((s) => s.code);
    const prices = new Map<string, number>();
    for (const code of stocks) prices.set(code, ((await call('GET', `/stocks/${code}/price`, admin))!.data as { price: number }).price);
    const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
    await call('POST', '/auth/register', undefined, { email, password: 'correct horse battery' });
    const token = (await call('POST', '/auth/login', undefined, { email, password: 'correct horse battery' }))!.access_token!;
    const channels: string[] = [];
    for (let i = 0; i < CHANNELS; i++) {
      const path = `/hook/${i}`;
      const c = (await call('POST', '/channels', token, { type: 'webhook', name: `bench ${i}`, url: receiverUrl + path }))!.data;
      secrets.set(path, c.secret);
      channels.push(c.id);
    }
    const up = (p: number, pctUp: number) => roundToTick(p * (1 + pctUp / 100), 'up');
    const rows: string[] = [];
    const volumes = new Map<string, number>();
    const tickBody = (list: [string, number][]) => ({ ticks: list.map(([code, price]) => ({ code, price, volume: (volumes.set(code, (volumes.get(code) ?? 0) + 10), volumes.get(code)!) })) });

    // Throughput rounds, interleaved with the baseline.
    const perStock = Math.ceil(ALERTS / STOCKS);
    for (let round = 1; round <= ROUNDS; round++) {
      const codes = stocks.slice(0, STOCKS);
      io.err(`round ${round}: creating ${ALERTS} alerts\n`);
      let n = 0;
      for (const code of codes) {
        for (let k = 0; k < perStock && n < ALERTS; k++, n++) {
          await call('POST', '/alerts', token, { code, alert_type: 'price_above', threshold: prices.get(code)! + 1, channels: [channels[n % CHANNELS]!] });
        }
      }
      const before = received;
      const cpu0 = processCpuMs(daemon.pid)!;
      const t0 = performance.now();
      for (let i = 0; i < codes.length; i += 100) {
        const batch = codes.slice(i, i + 100).map((c): [string, number] => [c, up(prices.get(c)!, 3)]);
        await call('POST', '/admin/ticks', admin, tickBody(batch));
      }
      await receivedAll(before + n);
      const elapsed = performance.now() - t0;
      const cpu = processCpuMs(daemon.pid)! - cpu0;
      rows.push(`delivery\tdaemon round ${round}\t${n} deliveries in ${(elapsed / 1000).toFixed(2)} s = ${((n * 1000) / elapsed).toFixed(0)}/s\tdaemon CPU ${((cpu * 1000) / n).toFixed(0)} µs per delivery`);
      io.err(`${rows.at(-1)}\n`);
      // Back down: the next round's alerts fire on the same move.
      for (let i = 0; i < codes.length; i += 100) await call('POST', '/admin/ticks', admin, tickBody(codes.slice(i, i + 100).map((c) => [c, prices.get(c)!])));

      const baseline = fork(new URL('./bench/webhook-baseline.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const result = await new Promise<{ elapsedMs: number; cpuMs: number }>((resolve) => {
        baseline.once('message', (m) => resolve(m as { elapsedMs: number; cpuMs: number }));
        baseline.send({ url: receiverUrl, count: n, concurrency: WORKERS } satisfies BaselineRun);
      });
      rows.push(`delivery\tbaseline round ${round}\t${n} signed POSTs (undici, concurrency ${WORKERS}) in ${(result.elapsedMs / 1000).toFixed(2)} s = ${((n * 1000) / result.elapsedMs).toFixed(0)}/s\tCPU ${((result.cpuMs * 1000) / n).toFixed(0)} µs per POST`);
      io.err(`${rows.at(-1)}\n`);
    }

    // Latency: one recurring alert per stock on 10 stocks, fired one at a time.
    const lat: number[] = [];
    const latCodes = stocks.slice(STOCKS - 10 > 0 ? STOCKS - 10 : 0).slice(0, 10);
    for (const code of latCodes) await call('POST', '/alerts', token, { code, alert_type: 'price_above', threshold: up(prices.get(code)!, 1), recurring: true, cooldown_s: 0, channels: [channels[0]!] });
    for (let i = 0; i < SAMPLES; i++) {
      const code = latCodes[i % latCodes.length]!;
      const arrived = new Promise<number>((resolve) => byCode.set(code, resolve));
      const t0 = performance.now();
      await call('POST', '/admin/ticks', admin, tickBody([[code, up(prices.get(code)!, 2)]]));
      lat.push((await arrived) - t0);
      byCode.delete(code);
      await call('POST', '/admin/ticks', admin, tickBody([[code, prices.get(code)!]]));
    }
    lat.sort((a, b) => a - b);
    rows.push(`delivery\ttick → webhook received (${SAMPLES} firings, group wait 0)\tp50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms, max ${lat.at(-1)!.toFixed(1)} ms`);
    rows.push(`delivery\treceiver\t${fromDaemon} deliveries from the daemon, ${verified} with a valid Standard Webhooks signature`);
    for (const r of rows) io.out(`${r}\n`);
    return verified === fromDaemon ? 0 : 1;
  } finally {
    await daemon.close();
    receiver.closeAllConnections();
    receiver.close();
    await deletePrefix(redis.url, prefix);
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
