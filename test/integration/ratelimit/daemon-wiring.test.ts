/** The limiter as wired into the daemon: screening cache hits are free, both prefixes share counters. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('rate limits in the running daemon', () => {
  let t: TestDaemon;
  let token: string;
  beforeAll(async () => {
    t = await startTestDaemon('rl-wiring', {
      rate_limit: { enabled: true, endpoints: { 'POST /screen': 3, 'POST /auth/login': 10, 'POST /auth/register': 10, 'GET /stocks/{code}': 200 } },
    });
    token = (await t.login()).access_token;
  });
  afterAll(() => t.close());

  const screen = (body: unknown, path = '/api/v1/screen') => t.request(path, { method: 'POST', json: body, token });

  it('does not count a screen answered from the result cache, and counts /screen and /v1/screening together', async () => {
    const first = await screen({ min_roe: 1 });
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(first.headers.get('x-ratelimit-endpoint')).toBe('/api/v1/screen');
    // The same request again, through the other prefix and the alias: a cache hit, not counted.
    for (let i = 0; i < 5; i++) {
      const hit = await screen({ min_roe: 1 }, '/v1/screening');
      expect(hit.status).toBe(200);
      expect(hit.headers.get('x-cache')).toBe('HIT');
    }
    expect((await screen({ min_roe: 2 }, '/v1/screening')).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await screen({ min_roe: 3 })).status).toBe(200);
    const rejected = await screen({ min_roe: 4 });
    expect(rejected.status).toBe(429);
    expect(await rejected.json()).toEqual({
      success: false,
      message: 'Endpoint rate limit exceeded',
      detail: 'Maximum 3 requests per hour allowed for /api/v1/screen',
    });
    expect(Number(rejected.headers.get('retry-after'))).toBeGreaterThan(0);
    // Still free when cached, even with the endpoint limit used up.
    expect((await screen({ min_roe: 1 })).status).toBe(200);
  });

  it('refuses a logged-out token: its revocation is read in the call that counts the request', async () => {
    // Given a signed-in user whose requests are counted
    const session = await t.login();
    const me = () => t.request('/api/v1/users/me', { token: session.access_token });
    const before = await me();
    expect(before.status).toBe(200);
    const remaining = Number(before.headers.get('x-ratelimit-remaining'));
    // When the user logs out
    const out = await t.request('/api/v1/auth/logout', { method: 'POST', json: { refresh_token: session.refresh_token }, token: session.access_token });
    expect(out.status).toBe(204);
    // Then the access token is refused as revoked, on a counted route and on a cached (free) screen alike
    const after = await me();
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('revoked');
    // (the logout and the refused request were counted against the user, as the README says)
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(remaining - 2);
    const cached = await t.request('/api/v1/screen', { method: 'POST', json: { min_roe: 1 }, token: session.access_token });
    expect(cached.status).toBe(401);
    // And a fresh login of the same user works
    expect((await t.request('/api/v1/users/me', { token: (await t.login(session.email)).access_token })).status).toBe(200);
  });

  it('counts an uncached template or preset run once and a cached one not at all, sharing the cache with /screen', async () => {
    const session = await t.login();
    const remaining = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'));
    const run = (path: string, json: unknown = {}) => t.request(path, { method: 'POST', json, token: session.access_token });
    const first = await run('/api/v1/screen/templates/value', { market: 'KOSDAQ' });
    expect(first.headers.get('x-cache')).toBe('MISS');
    const again = await run('/v1/screen/templates/value', { market: 'KOSDAQ' });
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(remaining(again)).toBe(remaining(first));
    const created = await run('/api/v1/screen/presets', { name: 'cheap', query: { max_per: 9 } });
    const preset = ((await created.json()) as { data: { id: string } }).data.id;
    const before = remaining(created);
    const missed = await run(`/api/v1/screen/presets/${preset}/run`);
    expect([missed.headers.get('x-cache'), remaining(missed)]).toEqual(['MISS', before - 1]);
    // The preset's query answered through /screen is the same cache entry: free there too.
    const viaScreen = await run('/api/v1/screen', { max_per: 9 });
    expect(viaScreen.headers.get('x-cache')).toBe('HIT');
    const hit = await run(`/api/v1/screen/presets/${preset}/run`);
    expect([hit.headers.get('x-cache'), remaining(hit)]).toEqual(['HIT', before - 1]);
  });

  it('leaves health and templates without rate-limit headers', async () => {
    expect((await t.request('/health')).headers.get('x-ratelimit-limit')).toBeNull();
    expect((await t.request('/api/v1/screen/templates', { token })).headers.get('x-ratelimit-limit')).toBeNull();
    expect((await t.request('/api/v1/users/me', { token })).headers.get('x-ratelimit-limit')).toBe('100');
  });
});

describe('CSV exports and the rate limits', () => {
  let t: TestDaemon;
  let token: string;
  beforeAll(async () => {
    t = await startTestDaemon('rl-csv', { rate_limit: { enabled: true } });
    token = (await t.login()).access_token;
  });
  afterAll(() => t.close());

  it('counts a CSV export of a cached screen (exports are never served from the cache)', async () => {
    // Given a screen whose JSON answer is in the result cache
    const body = { min_roe: 7 };
    const miss = await t.request('/api/v1/screen', { method: 'POST', json: body, token });
    expect(miss.headers.get('x-cache')).toBe('MISS');
    const remaining = Number(miss.headers.get('x-ratelimit-remaining'));
    const hit = await t.request('/api/v1/screen', { method: 'POST', json: body, token });
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(Number(hit.headers.get('x-ratelimit-remaining'))).toBe(remaining);
    // When the same screen is exported as CSV, by Accept header and by ?format=csv
    const byAccept = await t.request('/api/v1/screen', { method: 'POST', json: body, token, headers: { accept: 'text/csv' } });
    const byQuery = await t.request('/v1/screening?format=csv', { method: 'POST', json: body, token });
    // Then each export is counted
    expect(byAccept.headers.get('content-type')).toMatch(/text\/csv/);
    expect(byQuery.headers.get('content-type')).toMatch(/text\/csv/);
    expect(Number(byAccept.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    expect(Number(byQuery.headers.get('x-ratelimit-remaining'))).toBe(remaining - 2);
    expect(byQuery.headers.get('x-ratelimit-endpoint')).toBe('/v1/screening');
  });
});
