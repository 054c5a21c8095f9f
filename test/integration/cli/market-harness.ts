/**
 * A test daemon for the market commands (watch, ws-stats, alerts, portfolio): the ingest
 * feed with an always-open market, a small sample market loaded by the real job, an admin
 * to ingest ticks, a CLI user logged in through `run()`, and a fake IO whose stdout can
 * be awaited line by line (no sleeps).
 */
import { EventEmitter } from 'node:events';
import { roundToTick } from '../../../daemon/kernel/tick-size.js';
import { run } from '../../../cli/main.js';
import { waitForJob } from '../../helpers/jobs.js';
import type { DaemonOverrides } from '../../../daemon/daemon.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type FakeIOOptions, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const USER_PASSWORD = 'correct horse battery';

/** A stock of the sample market and its last close (the base of the ±30% limit). */
export interface SampleStock {
  code: string;
  name: string;
  close: number;
}

/** The daemon, the CLI environment and helpers. */
export interface MarketHarness {
  t: TestDaemon;
  env: TempEnv;
  adminToken: string;
  /** Stocks with a close and not halted. */
  stocks: SampleStock[];
  /** Run the CLI as the logged-in test user (`--url` prepended). */
  cli(argv: string[], io?: FakeIO): Promise<{ code: number; io: FakeIO }>;
  /** Ingest one tick through POST /admin/ticks; resolves with the accepted price. */
  tick(code: string, price: number, volume: number): Promise<number>;
  close(): Promise<void>;
}

/** A price on the KRX tick grid `percent` away from `close` (rounded to the nearest tick). */
export function priceNear(close: number, percent: number): number {
  return roundToTick(close * (1 + percent / 100), 'nearest');
}

/** The sample market a harness loads (default: 30 stocks × 60 days, seed 42). */
export interface SampleOptions {
  seed: number;
  stocks: number;
  days: number;
}

/** Start the daemon, load the sample market and log a user in through the CLI. */
export async function startMarketHarness(label: string, config: Record<string, unknown> = {}, sample: SampleOptions = { seed: 42, stocks: 30, days: 60 }, overrides: DaemonOverrides = {}): Promise<MarketHarness> {
  const t = await startTestDaemon(label, { feed: 'ingest', market_clock: 'always-open', workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password, ...config }, overrides);
  const login = await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
  const adminToken = ((await login.json()) as { access_token: string }).access_token;
  const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: adminToken, json: { type: 'load-sample', ...sample } });
  await waitForJob(t.daemon, ((await job.json()) as { data: { id: string } }).data.id);
  const list = (await (await t.request('/api/v1/stocks?limit=10', { token: adminToken })).json()) as { data: { code: string; name: string }[] };
  const stocks: SampleStock[] = [];
  for (const s of list.data) {
    const price = (await (await t.request(`/api/v1/stocks/${s.code}/price`, { token: adminToken })).json()) as { data: { price: number; halted: boolean } };
    if (!price.data.halted) stocks.push({ code: s.code, name: s.name, close: price.data.price });
  }
  const env = await tempEnv();
  const cli: MarketHarness['cli'] = async (argv, io = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, env.env), io });
  const email = `watcher-${Date.now()}@example.com`;
  for (const argv of [['register', '--email', email, '--password-stdin'], ['login', '--email', email, '--password-stdin']]) {
    const res = await cli(argv, fakeIO({ stdin: USER_PASSWORD }));
    if (res.code !== 0) throw new Error(`${argv[0]} failed: ${res.io.err()}`);
  }
  return {
    t, env, adminToken, stocks, cli,
    async tick(code, price, volume) {
      const res = await t.request('/api/v1/admin/ticks', { method: 'POST', token: adminToken, json: { code, price, volume } });
      if (res.status !== 202) throw new Error(`tick refused: ${res.status} ${await res.text()}`);
      return price;
    },
    async close() {
      await t.close();
      await env.cleanup();
    },
  };
}

/** A terminal-like IO (stdout is an EventEmitter with a size, as Ink needs) capturing what was drawn. */
export function ttyIO(signal?: AbortSignal): FakeIO {
  const base = fakeIO({ tty: true, columns: 120, signal });
  const stdout = Object.assign(new EventEmitter(), base.stdout, { rows: 40 });
  return { ...base, stdout };
}

/** A fake IO whose stdout lines can be awaited. */
export interface StreamIO extends FakeIO {
  /** Complete stdout lines so far. */
  lines(): string[];
  /** Resolve with the first line (from the start) matching `predicate`, parsed as JSON. */
  waitForJson(predicate: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** Build a StreamIO (piped, not a TTY). */
export function streamIO(options: FakeIOOptions = {}): StreamIO {
  const base = fakeIO(options);
  const waiters = new Set<() => void>();
  const write = base.stdout.write;
  base.stdout.write = (s: string) => {
    const r = write(s);
    for (const w of [...waiters]) w();
    return r;
  };
  const lines = () => base.out().split('\n').slice(0, -1);
  return {
    ...base,
    lines,
    waitForJson(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines().map((l) => JSON.parse(l) as Record<string, unknown>).find(predicate);
          if (!hit) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching line within ${timeoutMs} ms; stdout:\n${base.out()}\nstderr:\n${base.err()}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
