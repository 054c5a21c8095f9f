/**
 * Scale-out: two daemon processes and one worker process on loopback, sharing
 * one Redis and one database — PostgreSQL in the postgres pass, the sqlite file of one
 * data dir in the sqlite pass. No sticky sessions: every step talks to whichever daemon.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundToTick } from '../../../daemon/kernel/tick-size.js';
import { startDaemonProcess, stopAllDaemonProcesses, type DaemonProcess } from '../../helpers/daemon-processes.js';
import { waitForJobAt } from '../../helpers/jobs.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';
import { freshStoreSettings, testBackend } from '../../helpers/test-store.js';
import { connect, ofType, type Msg } from '../ws/client.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
type Body = { data: any; meta?: any; error?: any };

/** Poll `check` until it returns a value (bounded: a condition over another process, not a sleep). */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe(`two daemons and a worker in separate processes on ${testBackend()}`, () => {
  const prefix = testPrefix('multi');
  const redisUrl = testRedisUrl();
  let redis: Redis;
  let configDir: string;
  let dataDir: string;
  let a: DaemonProcess;
  let b: DaemonProcess;
  let admin: string;
  let codes: string[];

  const call = async (d: DaemonProcess, path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    const res = await fetch(d.url + path, { method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'), headers, body: init.json !== undefined ? JSON.stringify(init.json) : undefined });
    return { status: res.status, headers: res.headers, body: (res.status === 204 ? {} : await res.json()) as Body };
  };
  const login = async (d: DaemonProcess, email: string, password = 'correct horse battery') => (await call(d, '/api/v1/auth/login', { json: { email, password } })).body.data.access_token as string;
  const newUser = async (d: DaemonProcess) => {
    const email = `u-${Math.random().toString(36).slice(2, 10)}@example.com`;
    expect((await call(d, '/api/v1/auth/register', { json: { email, password: 'correct horse battery' } })).status).toBe(201);
    return { email, token: await login(d, email) };
  };
  const livePrice = async (d: DaemonProcess, code: string) => (await call(d, `/api/v1/stocks/${code}/price`, { token: admin })).body.data as { price: number; volume: number };
  const ingest = async (d: DaemonProcess, tick: { code: string; price: number; volume: number }) => {
    const res = await call(d, '/api/v1/admin/ticks', { json: tick, token: admin });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  };
  /** A tick the simulator cannot produce: the price one tick up and a volume jump of 1,234,567. */
  const markerTick = async (d: DaemonProcess, code: string) => {
    const live = await livePrice(d, code);
    return { code, price: roundToTick(live.price * 1.001, 'up'), volume: live.volume + 1_234_567 };
  };
  const watch = async (d: DaemonProcess, code: string, token?: string) => {
    const c = await connect(`${d.url.replace('http', 'ws')}/v1/ws${token ? `?token=${token}` : ''}`);
    const sessionId = (await c.next(ofType('connected'))).session_id as string;
    c.send({ type: 'subscribe', subscription_type: 'stock', targets: [code] });
    await c.next(ofType('subscribed'));
    return { c, sessionId };
  };
  /** The snapshot version a daemon screens on now. */
  const servedVersion = async (d: DaemonProcess): Promise<string> =>
    (await call(d, '/api/v1/screen', { json: { filters: { market: 'ALL' }, limit: 1 }, token: admin })).body.meta.snapshot_version;
  /** Waits until `d` screens on `version` (daemons swap snapshots on a notice, after the job). */
  const untilServing = (d: DaemonProcess, version: string, what: string) =>
    until(what, async () => ((await servedVersion(d)) === version ? version : undefined));
  const isMarker = (tick: { code: string; volume: number }) => (m: Msg) => m.type === 'price_update' && m.code === tick.code && m.volume === tick.volume;

  beforeAll(async () => {
    const store = await freshStoreSettings('multi');
    dataDir = store.data_dir;
    configDir = await mkdtemp(join(tmpdir(), 'stockscreen-multi-cfg-'));
    redis = new Redis(redisUrl);
    const base = {
      host: '127.0.0.1', port: 0, ...store, redis_url: redisUrl, redis_prefix: prefix, log_level: 'info',
      admin_email: ADMIN.email, admin_password: ADMIN.password,
      workers: 0, feed: 'simulator', feed_interval_ms: 500, market_clock: 'always-open',
      rate_limit: {
        enabled: true,
        tiers: { free: { per_hour: 100_000, per_day: 1_000_000 } },
        endpoints: { 'GET /stocks/{code}': 6, 'POST /auth/login': 1000, 'POST /auth/register': 1000, 'POST /screen': 1000 },
      },
    };
    // Started together, with no jwt_secret: both migrate, ensure the admin and agree on one
    // generated signing key through the database (or the shared data dir) at the same time.
    [a, b] = await Promise.all([startDaemonProcess('daemon-a', configDir, base), startDaemonProcess('daemon-b', configDir, base)]);
    await startDaemonProcess('worker', configDir, { ...base, workers: 1, feed: 'off' }, { worker: true });
    admin = await login(a, ADMIN.email, ADMIN.password);
    // The worker process loads a small sample market; both daemons pick up its snapshot.
    const job = await call(a, '/api/v1/admin/jobs', { json: { type: 'load-sample', stocks: 30, days: 80, seed: 7 }, token: admin });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    const loaded = (await waitForJobAt(redisUrl, prefix, job.body.data.id)) as { indicators: { version: string } };
    // The job is done when the worker has committed; each daemon swaps its snapshot after that,
    // on the worker's notice: wait for B to serve the new version (its stock list comes from it).
    await untilServing(b, loaded.indicators.version, 'B to serve the loaded market');
    codes = (await call(b, '/api/v1/stocks?limit=5', { token: admin })).body.data.map((s: { code: string }) => s.code);
    expect(codes.length).toBe(5);
  }, 120_000);

  afterAll(async () => {
    // Also stops a daemon whose sibling failed to start (then a, b are unassigned).
    await stopAllDaemonProcesses();
    redis?.disconnect();
    await deleteKeys(redisUrl, prefix);
    await rm(configDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('accepts on B a token issued by A, and rotates A\'s refresh token on B', async () => {
    const { email } = await newUser(a);
    const tokens = (await call(a, '/api/v1/auth/login', { json: { email, password: 'correct horse battery' } })).body.data;
    expect((await call(b, '/api/v1/users/me', { token: tokens.access_token })).body.data.email).toBe(email);
    const refreshed = await call(b, '/api/v1/auth/refresh', { json: { refresh_token: tokens.refresh_token } });
    expect(refreshed.status).toBe(200);
    // The old refresh token is spent on both.
    expect((await call(a, '/api/v1/auth/refresh', { json: { refresh_token: tokens.refresh_token } })).status).toBe(401);
  });

  it('lists on B a preset saved on A', async () => {
    const { token } = await newUser(a);
    const saved = await call(a, '/api/v1/screen/presets', { json: { name: 'cheap', query: { filters: { per: { max: 12 } } } }, token });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect((await call(b, '/api/v1/screen/presets', { token })).body.data.map((p: { id: string }) => p.id)).toEqual([saved.body.data.id]);
  });

  it('counts rate limits across both daemons', async () => {
    // GET /stocks/{code} is limited to 6 per hour in this deployment: 3 on each daemon use it up.
    const { token } = await newUser(b);
    const remaining: string[] = [];
    for (const d of [a, b, a, b, a, b]) {
      const res = await call(d, `/api/v1/stocks/${codes[0]}`, { token });
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
    expect((await call(a, `/api/v1/stocks/${codes[1]}`, { token })).status).toBe(429);
    expect((await call(b, `/api/v1/stocks/${codes[1]}`, { token })).status).toBe(429);
  });

  it('delivers a tick ingested on A to a WebSocket client of B', async () => {
    const { c } = await watch(b, codes[1]!);
    const tick = await markerTick(a, codes[1]!);
    await ingest(a, tick);
    expect(await c.next(isMarker(tick))).toMatchObject({ code: codes[1], price: tick.price, volume: tick.volume });
    await c.close();
  });

  it('restores on B a session dropped on A, replaying what it missed without a gap', async () => {
    const { c, sessionId } = await watch(a, codes[2]!);
    const lastSeen = c.ordered[c.ordered.length - 1]!.sequence!;
    await c.close();
    await until('the session to be saved', async () => ((await redis.exists(`${prefix}ws:session:${sessionId}`)) === 1 ? true : undefined));
    const watcher = await watch(b, codes[2]!);
    const tick = await markerTick(a, codes[2]!);
    await ingest(a, tick);
    await watcher.c.next(isMarker(tick));

    const back = await connect(`${b.url.replace('http', 'ws')}/v1/ws?session_id=${sessionId}`);
    const reconnected = await back.next(ofType('reconnected'));
    expect(reconnected).toMatchObject({ session_id: sessionId, restored_subscriptions: { stock: [codes[2]] } });
    const missed = reconnected.missed_messages_count as number;
    expect(missed).toBeGreaterThanOrEqual(1);
    // The replay holds the marker tick, in sequence order without a gap, after the last
    // message the client read on A (messages in flight when it closed are replayed too).
    const replay = await back.collect((m) => m.type !== 'reconnected' && m.type !== 'batch', missed);
    expect(replay.some(isMarker(tick))).toBe(true);
    const first = replay[0]!.sequence!;
    expect(first).toBeGreaterThan(lastSeen);
    expect(replay.map((m) => m.sequence)).toEqual(replay.map((_, i) => first + i));
    await back.close();
    await watcher.c.close();
  });

  it('fires an alert once although both daemons see the crossing tick', async () => {
    const user = await newUser(a);
    const code = codes[3]!;
    const live = await livePrice(a, code);
    // 15% above the live price: out of the simulator's reach during the test, inside the daily limit.
    const threshold = roundToTick(live.price * 1.15, 'up');
    const created = await call(a, '/api/v1/alerts', { json: { code, alert_type: 'price_above', threshold }, token: user.token });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const onB = await watch(b, code, user.token);
    // Crossing ticks enter through both daemons (each evaluates what it ingests; the
    // simulator's next ticks continue from them and cross again on the feed leader).
    await ingest(a, { code, price: threshold, volume: live.volume + 1_234_567 });
    await ingest(b, { code, price: threshold, volume: live.volume + 2_345_678 });
    const alert = await onB.c.next(ofType('alert'));
    expect(alert).toMatchObject({ code, alert_type: 'price_above', threshold, current_price: threshold });
    const events = await call(b, `/api/v1/alerts/${created.body.data.id}/events`, { token: user.token });
    expect(events.body.data).toHaveLength(1);
    // A later message on the connection proves no second alert was queued before it.
    const later = await markerTick(a, code);
    await ingest(a, later);
    await onB.c.next(isMarker(later));
    expect(onB.c.messages.filter((m) => m.type === 'alert')).toHaveLength(1);
    await onB.c.close();
  });

  it('refreshes B\'s screening snapshot after an indicator recomputation requested on A', async () => {
    const before = await servedVersion(b);
    const job = await call(a, '/api/v1/admin/jobs', { json: { type: 'compute-indicators' }, token: admin });
    const result = (await waitForJobAt(redisUrl, prefix, job.body.data.id)) as { indicators: { version: string } };
    expect(result.indicators.version).not.toBe(before);
    const seen = await untilServing(b, result.indicators.version, 'B to serve the new snapshot');
    expect(seen).toBe(result.indicators.version);
  });

  it('moves the price feed to the other daemon when the leader is killed', async () => {
    const leaderPid = async () => Number((await redis.get(`${prefix}feed:leader`))?.split(':')[1]);
    const first = await until('a feed leader', async () => ((await leaderPid()) || undefined));
    const [dead, survivor] = first === a.pid ? [a, b] : [b, a];
    expect(first).toBe(dead.pid);
    const { c } = await watch(survivor, codes[4]!);
    // A client of the doomed daemon, whose subscription is checkpointed in Redis.
    const victim = await watch(dead, codes[4]!);
    await until('the checkpoint of the subscription', async () =>
      ((await redis.hget(`${prefix}ws:session:${victim.sessionId}`, 'data')) ?? '').includes(codes[4]!) ? true : undefined);
    const lastSeen = victim.c.ordered[victim.c.ordered.length - 1]!.sequence!;
    await dead.kill();
    const killedAt = Date.now();
    // The survivor takes the lease once it expires and its simulator publishes again.
    expect(await until('the survivor to lead', async () => ((await leaderPid()) === survivor.pid ? true : undefined))).toBe(true);
    const update = await c.next((m) => m.type === 'price_update' && Date.parse(m.timestamp!) > killedAt, 20_000);
    expect(update).toMatchObject({ code: codes[4] });

    // The killed daemon's client restores its session on the survivor from the last checkpoint
    // (once the dead instance's liveness key has expired), numbering after what it had read.
    await victim.c.closed;
    const back = await connect(`${survivor.url.replace('http', 'ws')}/v1/ws?session_id=${victim.sessionId}&last_sequence=${lastSeen}`);
    expect(await back.next(ofType('reconnected'), 20_000)).toMatchObject({
      session_id: victim.sessionId, restored_from: 'checkpoint', restored_subscriptions: { stock: [codes[4]] },
    });
    expect(back.ordered[0]!.sequence).toBe(lastSeen + 1);
    expect(await back.next((m) => m.type === 'price_update' && m.code === codes[4], 20_000)).toBeDefined();
    await back.close();
    await c.close();
  });
});
