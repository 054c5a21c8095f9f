/**
 * The KIS feed with two daemon processes sharing Redis and the database, and the fake KIS API in
 * this process: the feed leader is killed (SIGKILL, nothing released) mid-session; the other
 * daemon takes the lease over, opens the one WebSocket session again with the registrations its
 * clients need, resumes the sweep, and reuses the token the dead leader stored.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceLimits, roundToTick } from '../../../daemon/kernel/tick-size.js';
import { startKisFake, type KisFake } from '../../fakes/kis-fake.js';
import { startDaemonProcess, stopAllDaemonProcesses, type DaemonProcess } from '../../helpers/daemon-processes.js';
import { waitForJobAt } from '../../helpers/jobs.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { freshStoreSettings, testBackend } from '../../helpers/test-store.js';
import { connect, ofType } from '../ws/client.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const KEY = 'PSkillKey';
const SECRET = 'kill-secret-0123456789';

/** Poll `check` until it returns a value (bounded: a condition over another process, not a sleep). */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe(`feed kis: the leader process is killed mid-session (${testBackend()})`, () => {
  const prefix = testPrefix('kis-kill');
  const redisUrl = testRedisUrl();
  let fake: KisFake;
  let configDir: string;
  let dataDir: string;
  let daemons: DaemonProcess[];
  let admin: string;
  let stocks: { code: string; name: string; close: number }[];

  const call = async (d: DaemonProcess, path: string, init: { json?: unknown; token?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    const res = await fetch(d.url + path, { method: init.json !== undefined ? 'POST' : 'GET', headers, body: init.json !== undefined ? JSON.stringify(init.json) : undefined });
    return { status: res.status, body: (await res.json()) as any };
  };
  const leader = async () => {
    for (const d of daemons) if ((await call(d, '/health')).body.feed?.leader) return d;
    return undefined;
  };

  beforeAll(async () => {
    fake = await startKisFake({ appKey: KEY, appSecret: SECRET, pingMs: 500 });
    const store = await freshStoreSettings('kis-kill');
    dataDir = store.data_dir;
    configDir = await mkdtemp(join(tmpdir(), 'stockscreen-kis-kill-'));
    const base = {
      host: '127.0.0.1', port: 0, ...store, redis_url: redisUrl, redis_prefix: prefix, log_level: 'info', jwt_secret: 'kill-test-secret-kill-test-secret-0123',
      admin_email: ADMIN.email, admin_password: ADMIN.password, workers: 1, rate_limit: { enabled: false }, market_clock: 'always-open',
      feed: 'kis', kis_app_key: KEY, kis_app_secret: SECRET, kis_rest_url: fake.restUrl, kis_ws_url: fake.wsUrl, kis_rest_calls_per_s: 10,
      kis_ws_max_registrations: 5, kis_sweep_pause_ms: 200,
    };
    daemons = [await startDaemonProcess('kis-a', configDir, base), await startDaemonProcess('kis-b', configDir, { ...base, workers: 0 })];
    admin = (await call(daemons[0]!, '/api/v1/auth/login', { json: ADMIN })).body.data.access_token;
    const job = await call(daemons[0]!, '/api/v1/admin/jobs', { json: { type: 'load-sample', stocks: 30, days: 40, seed: 5 }, token: admin });
    expect(job.status).toBe(202);
    await waitForJobAt(redisUrl, prefix, job.body.data.id);
    stocks = (await call(daemons[0]!, '/api/v1/screen', { json: { per_page: 100, sort: [{ field: 'code', direction: 'asc' }] }, token: admin })).body.data.filter((s: { close: number }) => s.close > 0);
    for (const s of stocks) fake.market.set(s.code, { name: s.name, price: s.close, prevClose: s.close, volume: 1000, open: s.close, high: s.close, low: s.close });
  }, 120_000);

  afterAll(async () => {
    await stopAllDaemonProcesses();
    await fake?.close();
    await deleteKeys(redisUrl, prefix);
    await rm(configDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the survivor takes over the sweep, the session and the registrations, with the stored token', async () => {
    const first = await until('a feed leader', leader);
    const survivor = daemons.find((d) => d !== first)!;
    const s = stocks[4]!;
    const at = (pct: number) => Math.min(priceLimits(s.close).upper, Math.max(priceLimits(s.close).lower, roundToTick(s.close * (1 + pct / 100))));
    const c = await connect(`${survivor.url.replace('http', 'ws')}/v1/ws`);
    await c.next(ofType('connected'));
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: [s.code] });
    await c.next(ofType('subscribed'));
    await until('the code registered by the leader', () => (fake.registered().includes(s.code) ? true : undefined));
    const tokens = fake.stats.tokenIssues;
    const connections = fake.stats.connections;

    await first.kill();
    await until('the survivor to lead', async () => ((await call(survivor, '/health')).body.feed?.leader ? true : undefined));
    await until('a new session with the registration', () => (fake.stats.connections === connections + 1 && fake.registered().includes(s.code) ? true : undefined));
    expect(fake.openSessions()).toBe(1);
    fake.trade(s.code, at(-4), 100);
    await c.next((m) => m.type === 'price_update' && m.code === s.code && m.price === at(-4) && m.source === 'tick', 15_000);
    const t = stocks[11]!;
    const q = fake.market.get(t.code)!;
    q.price = roundToTick(t.close * 1.05);
    q.volume += 10;
    await until('the sweep to resume', async () => ((await call(survivor, `/api/v1/stocks/${t.code}/price`, { token: admin })).body.data.price === q.price ? true : undefined));
    expect(fake.stats.tokenIssues).toBe(tokens);
    expect(fake.stats.maxOpenSessions).toBe(1);
    await c.close();
  });
});
