/**
 * Anonymous callers form a rate-limit class (spec "Rate-limit rules": per client address, 100
 * requests per hour). A caller without a valid token is counted against it on protected routes
 * too — before its 401, without its body being read — so a flood of unauthenticated requests
 * ends in 429s like any other.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('anonymous callers on protected routes', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // One trusted proxy hop: the test plays the proxy, so X-Forwarded-For picks the client address.
    t = await startTestDaemon('anon-rl', { trust_proxy: true, rate_limit: { enabled: true } });
  });
  afterAll(() => t.close());

  const from = (address: string, token?: string) =>
    t.request('/api/v1/stocks', { headers: { 'x-forwarded-for': address }, ...(token ? { token } : {}) });

  it('counts requests without a token and with an invalid one, and answers the 101st within the hour with 429', async () => {
    // Given one client address sending 100 requests to a protected route: half with no token, half with a forged one
    const remaining: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await from('198.51.100.7', i % 2 === 0 ? undefined : 'not.a.valid-token');
      const body = (await res.json()) as { status: string; error: { code: string } };
      // Then each is refused as unauthenticated, and carries the anonymous class's headers
      expect(res.status).toBe(401);
      expect(body.error.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect(res.headers.get('ratelimit-policy')).toContain('"anonymous-hourly";q=100;w=3600');
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));

    // When the same address sends request 101, with or without a token
    for (const token of [undefined, 'not.a.valid-token']) {
      const over = await from('198.51.100.7', token);
      // Then it is refused with the spec's 429 body and a Retry-After
      expect(over.status).toBe(429);
      expect(await over.json()).toEqual({ success: false, message: 'Rate limit exceeded', detail: 'Maximum 100 requests per hour allowed for anonymous tier' });
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    }

    // And another client address still has its own quota
    const other = await from('198.51.100.8');
    expect(other.status).toBe(401);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('does not charge a signed-in user for the anonymous requests of its address', async () => {
    // Given an address whose anonymous quota is spent
    for (let i = 0; i < 100; i++) await (await from('198.51.100.9')).arrayBuffer();
    expect((await from('198.51.100.9')).status).toBe(429);
    // When a user signs in and calls from that address
    const { access_token } = await t.login();
    const res = await from('198.51.100.9', access_token);
    // Then the user is answered and counted against its own tier
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toContain('"free-hourly"');
  });

  it('answers an unauthenticated body-bearing request with 401 and its count without reading the body', async () => {
    // Given a POST that announces a body and never sends it
    const { hostname, port } = new URL(t.url);
    const answer = await new Promise<{ status: number; remaining: unknown; endpoint: unknown }>((resolve, reject) => {
      const req = httpRequest({
        host: hostname, port, method: 'POST', path: '/api/v1/screen',
        headers: { 'content-type': 'application/json', 'content-length': '4000', 'x-forwarded-for': '198.51.100.10' },
      });
      req.on('response', (res) => {
        resolve({ status: res.statusCode ?? 0, remaining: res.headers['x-ratelimit-remaining'], endpoint: res.headers['x-ratelimit-endpoint'] });
        res.resume();
        req.destroy();
      });
      req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
      req.flushHeaders();
    });
    // Then the daemon answers 401 at once, counted against the address like any request to
    // that route (POST /screen's endpoint limit, 50 an hour, has the fewest left)
    expect(answer).toEqual({ status: 401, remaining: '49', endpoint: '/api/v1/screen' });
  });
});
