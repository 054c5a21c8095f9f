import { describe, expect, it } from 'vitest';
import { decide, peekHeaders, staticHeaders } from '../../../../daemon/ratelimit/decision.js';
import type { CheckSpec, Identity } from '../../../../daemon/ratelimit/policy.js';
import type { CounterState } from '../../../../daemon/ratelimit/store.js';

const endpoint: CheckSpec = { kind: 'endpoint', name: 'POST /screen', key: 'e', limit: 50, windowS: 3600, bucketS: 60, endpointPath: '/api/v1/screen' };
const hour: CheckSpec = { kind: 'tier_hour', name: 'free-hourly', key: 'h', limit: 100, windowS: 3600, bucketS: 60 };
const day: CheckSpec = { kind: 'tier_day', name: 'free-daily', key: 'd', limit: 2400, windowS: 86400, bucketS: 3600 };
const free: Identity = { kind: 'user', id: 'u', tier: 'free', customPerHour: null };
const anon: Identity = { kind: 'address', address: '1.2.3.4' };

const state = (count: number, resetMs = 3_600_000, retryMs = -1, filledAtMs = -1): CounterState => ({ count, resetMs, retryMs, filledAtMs });
const result = (admitted: boolean, counters: CounterState[]) => ({ admitted, nowMs: 0, counters });

describe('decide: admitted', () => {
  it('describes the limit with the fewest remaining and lists every policy in the IETF fields', () => {
    // Remaining: endpoint 50 − 10 = 40, hourly 100 − 70 = 30, daily 2400 − 70 = 2330 → hourly shown.
    const v = decide([endpoint, hour, day], result(true, [state(10, 1_500), state(70, 3_650_000), state(70, 86_000_000)]), free);
    expect(v.allowed).toBe(true);
    expect(v.headers).toEqual({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '30',
      'X-RateLimit-Reset': '3600',
      'RateLimit-Policy': '"POST /screen";q=50;w=3600, "free-hourly";q=100;w=3600, "free-daily";q=2400;w=86400',
      // t rounds up to whole seconds: 1,500 ms → 2.
      RateLimit: '"POST /screen";r=40;t=2, "free-hourly";r=30;t=3650, "free-daily";r=2330;t=86000',
    });
  });

  it('prefers the endpoint limit on a tie and then names the endpoint', () => {
    // Both have 10 left: 50 − 40 and 100 − 90.
    const v = decide([endpoint, hour], result(true, [state(40), state(90)]), free);
    expect(v.headers['X-RateLimit-Limit']).toBe('50');
    expect(v.headers['X-RateLimit-Remaining']).toBe('10');
    expect(v.headers['X-RateLimit-Endpoint']).toBe('/api/v1/screen');
  });
});

describe('decide: rejected', () => {
  it('answers for the endpoint when it filled first, with Retry-After the longest wait', () => {
    const v = decide(
      [endpoint, hour],
      result(false, [state(50, 1_000_000, 1_000_500, 1_000), state(100, 2_000_000, 2_000_000, 2_000)]),
      free,
    );
    expect(v.allowed).toBe(false);
    expect(v.body).toEqual({ success: false, message: 'Endpoint rate limit exceeded', detail: 'Maximum 50 requests per hour allowed for /api/v1/screen' });
    expect(v.headers['X-RateLimit-Limit']).toBe('50');
    expect(v.headers['X-RateLimit-Remaining']).toBe('0');
    expect(v.headers['X-RateLimit-Endpoint']).toBe('/api/v1/screen');
    // Both must pass: the tier frees after 2,000 s, the endpoint after 1,000.5 s.
    expect(v.headers['Retry-After']).toBe('2000');
  });

  it('answers for the tier when the tier filled first', () => {
    const v = decide([endpoint, hour], result(false, [state(50, 1, 30_000, 9_000), state(100, 1, 20_000, 5_000)]), free);
    expect(v.body).toEqual({ success: false, message: 'Rate limit exceeded', detail: 'Maximum 100 requests per hour allowed for free tier' });
    expect(v.headers['X-RateLimit-Limit']).toBe('100');
    expect(v.headers['X-RateLimit-Endpoint']).toBeUndefined();
    expect(v.headers['Retry-After']).toBe('30');
  });

  it('breaks a tie in fill time by the limit that frees later', () => {
    const v = decide([hour, day], result(false, [state(100, 1, 600_000, 7_000), state(2400, 1, 3_000_000, 7_000)]), free);
    expect(v.body?.detail).toBe('Maximum 2400 requests per day allowed for free tier');
    expect(v.headers['X-RateLimit-Limit']).toBe('2400');
  });

  it('ignores a limit that is not exceeded, and rounds Retry-After up to whole seconds', () => {
    const v = decide([endpoint, hour], result(false, [state(49), state(100, 1, 1_200, 0)]), anon);
    expect(v.body?.detail).toBe('Maximum 100 requests per hour allowed for anonymous tier');
    expect(v.headers['Retry-After']).toBe('2');
    expect(v.headers.RateLimit).toBe('"POST /screen";r=1;t=3600, "free-hourly";r=0;t=1');
  });
});

describe('other header sets', () => {
  it('peek: current remaining without counting', () => {
    const h = peekHeaders([endpoint, hour], result(true, [state(50), state(60)]));
    expect(h['X-RateLimit-Remaining']).toBe('0');
    expect(h['X-RateLimit-Endpoint']).toBe('/api/v1/screen');
  });

  it('fail open: only what is known without the store (no Remaining)', () => {
    expect(staticHeaders([endpoint, hour])).toEqual({
      'X-RateLimit-Limit': '50',
      'X-RateLimit-Reset': '3600',
      'X-RateLimit-Endpoint': '/api/v1/screen',
      'RateLimit-Policy': '"POST /screen";q=50;w=3600, "free-hourly";q=100;w=3600',
    });
  });
});
