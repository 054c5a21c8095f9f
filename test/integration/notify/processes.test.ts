/**
 * Deliveries across real daemon processes (bin/stockscreend) sharing one database and one Redis:
 * a daemon killed (SIGKILL) during an attempt, or while a delivery waits for its retry, loses
 * nothing — another daemon sends it with the same webhook-id; two daemons evaluating the same
 * ticks deliver each firing once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemonProcess, stopAllDaemonProcesses, type DaemonProcess } from '../../helpers/daemon-processes.js';
import { startWebhookReceiver, type Receiver, type Reply, type WebhookReceived } from '../../helpers/notify-receivers.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { freshStoreSettings, testBackend } from '../../helpers/test-store.js';
import { CODES, startNotifyDaemon, until } from './harness.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
const JWT = 'test-secret-test-secret-test-secret-0123456789';

describe(`deliveries across daemon processes on ${testBackend()}`, () => {
  const prefix = testPrefix('notify-proc');
  const redisUrl = testRedisUrl();
  let store: Awaited<ReturnType<typeof freshStoreSettings>>;
  let configDir: string;
  let receiver: Receiver<WebhookReceived>;
  let token: string;
  let admin: string;
  const secrets = new Map<string, string>();
  const scripts = new Map<string, (n: number) => Reply>();
  const channels = new Map<string, string>();
  let base: Record<string, unknown>;
  const volumes = new Map<string, number>();

  const call = async (d: DaemonProcess, method: string, path: string, tok: string, json?: unknown) => {
    const res = await fetch(`${d.url}/api/v1${path}`, { method, headers: { authorization: `Bearer ${tok}`, ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? JSON.stringify(json) : undefined });
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBeLessThan(300);
    return text ? JSON.parse(text).data : undefined;
  };
  /** The same tick (price, day volume) posted to each daemon: every one of them evaluates it. */
  const tick = async (daemons: DaemonProcess[], code: string, price: number) => {
    const volume = (volumes.get(code) ?? 0) + 1;
    volumes.set(code, volume);
    for (const d of daemons) await call(d, 'POST', '/admin/ticks', admin, { code, price, volume });
  };
  const at = (path: string) => (r: WebhookReceived) => r.path === path;
  const delivered = (d: DaemonProcess, id: string) => until(`delivery ${id} delivered`, async () => {
    const x = await call(d, 'GET', `/deliveries/${id}`, token);
    return x.status === 'delivered' ? x : undefined;
  }, 30_000);
  // A loaded machine (other test files, other engineers) can take a while to start a process.
  const start = (name: string) => startDaemonProcess(name, configDir, base, { timeoutMs: 90_000 });

  beforeAll(async () => {
    store = await freshStoreSettings('notify-proc');
    configDir = await mkdtemp(join(tmpdir(), 'stockscreen-notify-cfg-'));
    receiver = await startWebhookReceiver({
      secret: (path) => secrets.get(path),
      script: (_n, r) => scripts.get(r.path)?.(receiver.received.filter(at(r.path)).length) ?? { status: 204 },
    });
    // An in-process daemon on the shared store prepares the market, a user, channels and alerts, then stops (keeping the store).
    const seed = await startNotifyDaemon('notify-proc-seed', { ...store, redis_prefix: prefix, jwt_secret: JWT, delivery_workers: 0 });
    const user = await seed.t.login();
    token = user.access_token;
    admin = seed.admin;
    for (const name of ['hang', 'retry', 'pair']) {
      const path = `/hook/${name}`;
      const created = await seed.call('POST', '/channels', token, { type: 'webhook', name, url: receiver.url + path }, 201);
      secrets.set(path, created.secret);
      channels.set(name, created.id);
    }
    const alert = (code: string, channel: string) => seed.call('POST', '/alerts', token, { code, alert_type: 'price_above', threshold: 10_500, channels: [channels.get(channel)!] }, 201);
    await alert(CODES[0], 'hang');
    await alert(CODES[1], 'retry');
    for (const code of CODES.slice(2, 6)) await alert(code, 'pair');
    await seed.t.daemon.close();
    base = {
      host: '127.0.0.1', port: 0, ...store, redis_url: redisUrl, redis_prefix: prefix, log_level: 'info', jwt_secret: JWT,
      admin_email: ADMIN.email, admin_password: ADMIN.password, password_scrypt_log_n: 12, workers: 0, feed: 'ingest', market_clock: 'always-open',
      rate_limit: { enabled: false }, webhook_allow_private: true, delivery_group_wait_ms: 0, delivery_timeout_ms: 2000, job_lock_ms: 1000,
      delivery_retry_base_ms: 50, delivery_retry_max_ms: 200,
    };
  }, 120_000);

  afterAll(async () => {
    await stopAllDaemonProcesses();
    await receiver?.close();
    await deleteKeys(redisUrl, prefix);
    await rm(configDir, { recursive: true, force: true });
    if (store?.data_dir) await rm(store.data_dir, { recursive: true, force: true });
  });

  it('Given a daemon killed while its receiver has not answered, then another daemon sends the delivery again with the same webhook-id', async () => {
    scripts.set('/hook/hang', (n) => (n === 1 ? { hang: true } : { status: 204 }));
    const a = await start('a');
    await tick([a], CODES[0], 10_600);
    const [first] = await receiver.waitFor(1, at('/hook/hang'));
    await a.kill();
    const b = await start('b');
    const [, second] = await receiver.waitFor(2, at('/hook/hang'));
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    expect([first!.verified, second!.verified]).toEqual([true, true]);
    expect((await delivered(b, first!.headers['webhook-id']!)).attempts.map((x: any) => x.status_code)).toEqual([204]);
    await b.kill();
  }, 240_000);

  it('Given a daemon killed while a delivery waits for its retry, then the next daemon makes the retry with the same webhook-id', async () => {
    scripts.set('/hook/retry', (n) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 204 }));
    const a = await start('a2');
    await tick([a], CODES[1], 10_600);
    const [first] = await receiver.waitFor(1, at('/hook/retry'));
    const id = first!.headers['webhook-id']!;
    await until('the retry scheduled', async () => (await call(a, 'GET', `/deliveries/${id}`, token)).status === 'retrying');
    await a.kill();
    const b = await start('b2');
    const [, second] = await receiver.waitFor(2, at('/hook/retry'));
    expect(second!.headers['webhook-id']).toBe(id);
    expect(second!.verified).toBe(true);
    expect((await delivered(b, id)).attempts.map((x: any) => x.status_code)).toEqual([503, 204]);
    await b.kill();
  }, 240_000);

  it('Given two daemons evaluating the same ticks, then each firing reaches the channel once', async () => {
    const [a, b] = await Promise.all([start('a3'), start('b3')]);
    for (const code of CODES.slice(2, 6)) await tick([a, b], code, 10_600);
    const got = await receiver.waitFor(4, at('/hook/pair'));
    const ids = await until('four deliveries delivered', async () => {
      const list = await call(b, 'GET', `/deliveries?channel_id=${channels.get('pair')}&status=delivered`, token);
      return list.length === 4 ? list.map((x: any) => x.id) : undefined;
    });
    const events = got.flatMap((r) => r.json.data.events.map((e: any) => e.code));
    expect(events.sort()).toEqual([...CODES.slice(2, 6)].sort());
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
    expect(receiver.received.filter(at('/hook/pair'))).toHaveLength(4);
  }, 240_000);
});
