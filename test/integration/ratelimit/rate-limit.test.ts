/**
 * The rate limiter end to end over HTTP: real Redis (unique prefix), real sqlite users,
 * real tokens, injected clock. Limits are the spec's defaults unless a test says otherwise.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Tier } from '../../../daemon/kernel/roles.js';
import { parseConfig } from '../../../daemon/config.js';
import { planChecks } from '../../../daemon/ratelimit/policy.js';
import { createRateLimitStore } from '../../../daemon/ratelimit/store.js';
import { deleteKeys, testPrefix } from '../../helpers/test-daemon.js';
import { T0, commandClient, openAccounts, sequential, startApp, type Accounts, type TestApp } from './harness.js';

const MIN = 60_000;
const SETTINGS = parseConfig({}).rate_limit;

describe('rate limiter over HTTP', () => {
  const url = inject('redisUrl');
  const prefix = testPrefix('rl-http');
  let redis: Redis;
  let accounts: Accounts;
  let app: TestApp;
  let proxied: TestApp;
  let free: { id: string; token: string } | undefined;

  beforeAll(async () => {
    redis = commandClient(url);
    accounts = await openAccounts();
    app = await startApp({ redis, prefix, accounts, isFreeRequest: async (req) => req.get('x-test-cache') === 'hit' });
    proxied = await startApp({ redis, prefix, accounts, trustProxy: true });
  });
  afterAll(async () => {
    await app?.close();
    await proxied?.close();
    redis?.disconnect();
    await accounts?.close();
    await deleteKeys(url, prefix);
  });

  /** A client address of its own (through the trust-proxy app), so tests never share a counter. */
  let ipN = 0;
  const freshIp = () => `198.51.100.${++ipN}`;
  const remaining = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'));
  /** Preload a user's tier counter with `count` admitted requests at the current time (through the store). */
  const seed = async (userId: string, tier: Tier, kind: 'tier_hour' | 'tier_day', count: number) => {
    const identity = { kind: 'user', id: userId, tier, customPerHour: null } as const;
    const check = planChecks(SETTINGS, identity, undefined, (...parts) => prefix + parts.join(':')).find((c) => c.kind === kind)!;
    const store = createRateLimitStore(redis);
    const now = accounts.clock.now();
    await Promise.all(Array.from({ length: count }, () => store.hit([{ ...check, limit: Number.MAX_SAFE_INTEGER }], now)));
  };

  it('admits the 100th anonymous request and rejects the 101st with the tier body and every header', async () => {
    accounts.clock.set(T0);
    const ip = freshIp();
    const get = () => proxied.request('/api/v1/stocks', { headers: { 'x-forwarded-for': ip } });
    const statuses = await sequential(99, get);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const last = await get();
    expect(last.status).toBe(200);
    expect(remaining(last)).toBe(0);
    const over = await get();
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ success: false, message: 'Rate limit exceeded', detail: 'Maximum 100 requests per hour allowed for anonymous tier' });
    expect(over.headers.get('x-ratelimit-limit')).toBe('100');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(over.headers.get('x-ratelimit-reset')).toBe('3600');
    expect(over.headers.get('x-ratelimit-endpoint')).toBeNull();
    // All 100 were made at T0: each counts for exactly 3,600 s, so the first slot frees in 3,600 s.
    expect(over.headers.get('retry-after')).toBe('3600');
    expect(over.headers.get('ratelimit-policy')).toBe('"anonymous-hourly";q=100;w=3600');
    expect(over.headers.get('ratelimit')).toBe('"anonymous-hourly";r=0;t=3600');
  });

  it('shrinks Retry-After as the window rolls and admits again exactly 3600 s after the oldest request', async () => {
    accounts.clock.set(T0);
    const ip = freshIp();
    const get = () => proxied.request('/api/v1/stocks', { headers: { 'x-forwarded-for': ip } });
    await sequential(100, get);
    accounts.clock.set(T0 + 30 * MIN);
    const at30 = await get();
    expect(at30.status).toBe(429);
    expect(at30.headers.get('retry-after')).toBe('1800'); // 3,600 − 1,800
    accounts.clock.set(T0 + 60 * MIN - 1000);
    expect((await get()).headers.get('retry-after')).toBe('1');
    accounts.clock.set(T0 + 60 * MIN);
    const back = await get();
    expect(back.status).toBe(200);
    expect(remaining(back)).toBe(99);
  });

  it('applies POST /screen 50/h across /api/v1/screen, /v1/screen and /v1/screening', async () => {
    accounts.clock.set(T0);
    const u = await accounts.user('free');
    const paths = ['/api/v1/screen', '/v1/screen', '/v1/screening'];
    const statuses = await sequential(50, (i) => app.request(paths[i % 3]!, { method: 'POST', token: u.token }));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const over = await app.request('/v1/screen', { method: 'POST', token: u.token });
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ success: false, message: 'Endpoint rate limit exceeded', detail: 'Maximum 50 requests per hour allowed for /v1/screen' });
    expect(over.headers.get('x-ratelimit-limit')).toBe('50');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(over.headers.get('x-ratelimit-endpoint')).toBe('/v1/screen');
    expect(over.headers.get('retry-after')).toBe('3600');
    expect(over.headers.get('ratelimit-policy')).toBe('"POST /screen";q=50;w=3600, "free-hourly";q=100;w=3600, "free-daily";q=2400;w=86400');
    // t = until the oldest request leaves: exactly 3,600 s for the hour; for the day the hour-0
    // bucket leaves at hour 24 (86,400 − 10 s).
    expect(over.headers.get('ratelimit')).toBe('"POST /screen";r=0;t=3600, "free-hourly";r=50;t=3600, "free-daily";r=2350;t=86390');
    // The tier still has room for other endpoints: the rejected screens consumed nothing.
    const other = await app.request('/api/v1/stocks', { token: u.token });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-limit')).toBe('100');
    expect(remaining(other)).toBe(49); // 100 − 50 screens − this one
  });

  it('applies GET /stocks/{code} 200/h over all codes', async () => {
    accounts.clock.set(T0);
    const u = await accounts.user('basic');
    const statuses = await sequential(200, (i) => app.request(`/api/v1/stocks/${String(i).padStart(6, '0')}`, { token: u.token }));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const over = await app.request('/api/v1/stocks/005930', { token: u.token });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { detail: string }).detail).toBe('Maximum 200 requests per hour allowed for /api/v1/stocks/{code}');
    expect(over.headers.get('x-ratelimit-endpoint')).toBe('/api/v1/stocks/{code}');
  });

  it('applies POST /auth/login and /auth/register 10/h per address, separately', async () => {
    accounts.clock.set(T0);
    const ip = freshIp();
    const post = (path: string) => proxied.request(path, { method: 'POST', headers: { 'x-forwarded-for': ip } });
    expect((await sequential(10, () => post('/api/v1/auth/login'))).every((s) => s === 200)).toBe(true);
    const over = await post('/v1/auth/login');
    expect(over.status).toBe(429);
    expect(((await over.json()) as { detail: string }).detail).toBe('Maximum 10 requests per hour allowed for /v1/auth/login');
    const reg = await post('/api/v1/auth/register');
    expect(reg.status).toBe(200);
    expect(reg.headers.get('x-ratelimit-limit')).toBe('10');
    expect(remaining(reg)).toBe(9);
    expect(reg.headers.get('x-ratelimit-endpoint')).toBe('/api/v1/auth/register');
  });

  it('admits exactly the tier limit for basic (1,000), pro (10,000) and enterprise (custom or default)', async () => {
    accounts.clock.set(T0);
    // Preload limit − 1 requests at the current time, then probe the boundary over HTTP.
    const cases = [
      { tier: 'basic' as const, custom: null, limit: 1_000 },
      { tier: 'pro' as const, custom: null, limit: 10_000 },
      { tier: 'enterprise' as const, custom: 5_000, limit: 5_000 },
    ];
    for (const { tier, custom, limit } of cases) {
      const u = await accounts.user(tier);
      if (custom) await accounts.users.update(u.id, { rate_limit_per_hour: custom });
      await seed(u.id, tier, 'tier_hour', limit - 1);
      const last = await app.request('/api/v1/stocks', { token: u.token });
      expect([last.status, last.headers.get('x-ratelimit-limit'), remaining(last)]).toEqual([200, String(limit), 0]);
      const over = await app.request('/api/v1/stocks', { token: u.token });
      expect(over.status).toBe(429);
      expect(((await over.json()) as { detail: string }).detail).toBe(`Maximum ${limit} requests per hour allowed for ${tier} tier`);
    }
    // Enterprise without a custom limit: the configured default.
    const ent = await accounts.user('enterprise');
    const first = await app.request('/api/v1/stocks', { token: ent.token });
    expect([first.headers.get('x-ratelimit-limit'), remaining(first)]).toEqual(['100000', 99_999]);
  });

  it('rejects on the daily limit with the per-day body', async () => {
    accounts.clock.set(T0);
    const u = await accounts.user('free');
    await seed(u.id, 'free', 'tier_day', 2400);
    const res = await app.request('/api/v1/stocks', { token: u.token });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ success: false, message: 'Rate limit exceeded', detail: 'Maximum 2400 requests per day allowed for free tier' });
    expect(res.headers.get('x-ratelimit-limit')).toBe('2400');
    // The seeded requests sit in the hour-0 bucket, which leaves the day window at hour 24: 24 h − 10 s = 86,390 s.
    expect(res.headers.get('retry-after')).toBe('86390');
  });

  it('answers for the limit reached first when both are exceeded', async () => {
    accounts.clock.set(T0);
    const u = await accounts.user('free');
    await sequential(50, () => app.request('/api/v1/screen', { method: 'POST', token: u.token })); // endpoint full at minute 0
    accounts.clock.set(T0 + 5 * MIN);
    await sequential(50, () => app.request('/api/v1/stocks', { token: u.token })); // tier full at minute 5
    const res = await app.request('/api/v1/screen', { method: 'POST', token: u.token });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { message: string }).message).toBe('Endpoint rate limit exceeded');
    // Both free when the requests made at T0 leave, 3,600 s after T0: 3,600 − 300 = 3,300 s.
    expect(res.headers.get('retry-after')).toBe('3300');
    const tierOnly = await app.request('/api/v1/stocks', { token: u.token });
    expect(((await tierOnly.json()) as { message: string }).message).toBe('Rate limit exceeded');
  });

  it('counts per user with a valid token and per address otherwise (an invalid token is anonymous)', async () => {
    accounts.clock.set(T0);
    const ip = freshIp();
    const a = await accounts.user('free');
    const b = await accounts.user('free');
    const headers = { 'x-forwarded-for': ip };
    await sequential(3, () => proxied.request('/api/v1/stocks', { token: a.token, headers }));
    expect(remaining(await proxied.request('/api/v1/stocks', { token: b.token, headers }))).toBe(99);
    expect(remaining(await proxied.request('/api/v1/stocks', { headers }))).toBe(99);
    expect(remaining(await proxied.request('/api/v1/stocks', { token: 'not-a-token', headers }))).toBe(98);
    expect(remaining(await proxied.request('/api/v1/stocks', { token: a.token, headers }))).toBe(96);
  });

  it('ignores X-Forwarded-For unless trust proxy is on', async () => {
    accounts.clock.set(T0 + 600 * MIN); // a window no other test used for 127.0.0.1
    const first = await app.request('/api/v1/stocks', { headers: { 'x-forwarded-for': freshIp() } });
    const second = await app.request('/api/v1/stocks', { headers: { 'x-forwarded-for': freshIp() } });
    expect(remaining(second)).toBe(remaining(first) - 1);
    const p1 = await proxied.request('/api/v1/stocks', { headers: { 'x-forwarded-for': freshIp() } });
    const p2 = await proxied.request('/api/v1/stocks', { headers: { 'x-forwarded-for': freshIp() } });
    expect([remaining(p1), remaining(p2)]).toEqual([99, 99]);
  });

  it('applies an admin tier change on the next request, keeping the count', async () => {
    accounts.clock.set(T0);
    const u = await accounts.user('free');
    const before = await app.request('/api/v1/stocks', { token: u.token });
    expect([before.headers.get('x-ratelimit-limit'), remaining(before)]).toEqual(['100', 99]);
    await accounts.users.update(u.id, { tier: 'basic' });
    const after = await app.request('/api/v1/stocks', { token: u.token });
    expect([after.headers.get('x-ratelimit-limit'), remaining(after)]).toEqual(['1000', 998]);
  });

  it('ends a load-test exemption when the injected clock passes its end, not the wall clock', async () => {
    // Given a free user over its daily limit, exempt until one hour after T0
    accounts.clock.set(T0);
    const u = await accounts.user('free');
    await seed(u.id, 'free', 'tier_day', 2400);
    await accounts.users.update(u.id, { loadtest_exempt_until: new Date(T0 + 60 * MIN).toISOString() });
    // When it asks during the exemption (by the daemon's clock), it is admitted without limit headers
    const during = await app.request('/api/v1/stocks', { token: u.token });
    expect(during.status).toBe(200);
    expect(during.headers.get('x-ratelimit-limit')).toBeNull();
    // And once the clock is past the end, the limit applies again
    accounts.clock.set(T0 + 61 * MIN);
    const after = await app.request('/api/v1/stocks', { token: u.token });
    expect(after.status).toBe(429);
  });

  it('leaves exempt paths alone (no headers, no count), even for routes not registered', async () => {
    accounts.clock.set(T0 + 700 * MIN);
    const ip = freshIp();
    const headers = { 'x-forwarded-for': ip };
    for (const path of ['/health', '/health/db', '/docs/assets/swagger-ui.css', '/openapi.json', '/metrics', '/api/v1/screen/templates', '/v1/screen/templates']) {
      const res = await proxied.request(path, { headers });
      expect(res.headers.get('x-ratelimit-limit'), path).toBeNull();
      expect(res.headers.get('ratelimit-policy'), path).toBeNull();
    }
    expect(remaining(await proxied.request('/api/v1/stocks', { headers }))).toBe(99);
  });

  it('neither counts nor rejects free (cached) requests, but shows the current remaining', async () => {
    accounts.clock.set(T0);
    const u = await accounts.user('free');
    const screen = (cached: boolean) => app.request('/api/v1/screen', { method: 'POST', token: u.token, headers: cached ? { 'x-test-cache': 'hit' } : {} });
    await sequential(2, () => screen(false));
    const hit = await screen(true);
    expect([hit.status, remaining(hit)]).toEqual([200, 48]);
    expect(remaining(await screen(false))).toBe(47);
    await sequential(47, () => screen(false));
    expect((await screen(false)).status).toBe(429);
    const cachedWhenFull = await screen(true);
    expect([cachedWhenFull.status, remaining(cachedWhenFull)]).toEqual([200, 0]);
  });

  it('admits exactly the limit when 150 requests arrive at once', async () => {
    accounts.clock.set(T0);
    const ip = freshIp();
    const statuses = await Promise.all(
      Array.from({ length: 150 }, () => proxied.request('/api/v1/stocks', { headers: { 'x-forwarded-for': ip } }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
  });
});
