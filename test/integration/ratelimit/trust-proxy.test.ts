/**
 * --trust-proxy (the spec: X-Forwarded-For only behind a configured proxy):
 * with one trusted hop the client address is the entry the proxy appended (the rightmost),
 * so a client cannot pick its own address — and its anonymous quota — by forging entries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('rate-limit keying behind one trusted proxy', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // Given a daemon that trusts one proxy hop (the test client plays the proxy)
    t = await startTestDaemon('trust-proxy', { trust_proxy: true, rate_limit: { enabled: true } });
  });
  afterAll(() => t.close());

  // A public route with an endpoint limit of its own (10 an hour per address).
  const remaining = async (xff: string) => {
    const res = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'nobody@example.com', password: 'wrong-password-1' }, headers: { 'x-forwarded-for': xff } });
    await res.arrayBuffer();
    return Number(res.headers.get('x-ratelimit-remaining'));
  };

  it('ignores forged leftmost X-Forwarded-For entries and counts by the address the proxy saw', async () => {
    // When one client rotates the leftmost (client-written) entry
    const first = await remaining('6.6.6.1, 203.0.113.7');
    const second = await remaining('6.6.6.2, 203.0.113.7');
    const third = await remaining('1.1.1.1, 6.6.6.3, 203.0.113.7');
    // Then every request counts against the same address
    expect([second, third]).toEqual([first - 1, first - 2]);
    // And another address the proxy saw has its own count
    // (POST /auth/login: 10 per hour per address)
    expect(await remaining('6.6.6.1, 203.0.113.8')).toBe(9);
  });
});
