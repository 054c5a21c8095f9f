import { describe, expect, it } from 'vitest';
import {
  addressKey,
  canonicalPrefix,
  compileEndpointRules,
  endpointKey,
  planChecks,
  tierLimits,
  type RateLimitSettings,
} from '../../../../daemon/ratelimit/policy.js';

const PREFIXES = ['/api/v1', '/v1'];

/** The spec's numbers ("Tier limits", "Endpoint limits"). */
const SETTINGS: RateLimitSettings = {
  anonymous_per_hour: 100,
  tiers: {
    free: { per_hour: 100, per_day: 2400 },
    basic: { per_hour: 1000, per_day: 24000 },
    pro: { per_hour: 10000, per_day: 240000 },
    enterprise: { per_hour: 100000, per_day: 2400000 },
  },
  endpoints: { 'POST /screen': 50, 'GET /stocks/{code}': 200, 'POST /auth/register': 10, 'POST /auth/login': 10 },
};
const RULES = compileEndpointRules(SETTINGS.endpoints);
/** The endpoint a route declaring `method template` counts under ('tier only' when none), shown at `prefix`. */
const endpointOf = (method: string, template: string, prefix = '/api/v1') => {
  const rule = RULES.get(endpointKey(`${method} ${template}`));
  return rule ? { rule, path: canonicalPrefix(prefix, PREFIXES) + template } : undefined;
};
const nameOf = (method: string, template: string) => endpointOf(method, template)?.rule.name ?? 'tier only';

describe('endpoint limits looked up by a route\'s declared template', () => {
  it('finds each configured limit whatever the parameter is called, its case or a trailing slash', () => {
    expect(nameOf('POST', '/screen')).toBe('POST /screen');
    expect(nameOf('GET', '/stocks/{code}')).toBe('GET /stocks/{code}');
    expect(nameOf('GET', '/stocks/{symbol}')).toBe('GET /stocks/{code}');
    expect(endpointKey('get /Stocks/:code/')).toBe(endpointKey('GET /stocks/{code}'));
    expect(nameOf('POST', '/auth/login')).toBe('POST /auth/login');
    expect(nameOf('POST', '/auth/register')).toBe('POST /auth/register');
  });

  it('gives other routes and other methods only the tier limits', () => {
    expect(nameOf('GET', '/screen')).toBe('tier only');
    expect(nameOf('GET', '/stocks/{code}/history')).toBe('tier only');
    expect(nameOf('GET', '/stocks')).toBe('tier only');
    expect(nameOf('POST', '/auth/refresh')).toBe('tier only');
  });

  it('shows the endpoint under the prefix the client used, canonically spelled', () => {
    expect(endpointOf('POST', '/screen', '/v1')?.path).toBe('/v1/screen');
    expect(endpointOf('POST', '/screen', '/API/V1')?.path).toBe('/api/v1/screen');
  });

  it('rejects a malformed endpoint key in the config', () => {
    expect(() => compileEndpointRules({ '/screen': 5 })).toThrow(/POST \/screen/);
  });
});

describe('tierLimits', () => {
  const user = (tier: 'free' | 'basic' | 'pro' | 'enterprise', customPerHour: number | null = null) =>
    ({ kind: 'user', id: 'u1', tier, customPerHour }) as const;

  it('gives the spec table per tier, anonymous 100/h with no daily limit', () => {
    expect(tierLimits(SETTINGS, { kind: 'address', address: '1.2.3.4' })).toEqual({ perHour: 100, perDay: null });
    expect(tierLimits(SETTINGS, user('free'))).toEqual({ perHour: 100, perDay: 2400 });
    expect(tierLimits(SETTINGS, user('basic'))).toEqual({ perHour: 1000, perDay: 24000 });
    expect(tierLimits(SETTINGS, user('pro'))).toEqual({ perHour: 10000, perDay: 240000 });
  });

  it("uses an enterprise account's custom hourly limit (daily 24×), else the default; ignores it on other tiers", () => {
    expect(tierLimits(SETTINGS, user('enterprise', 5000))).toEqual({ perHour: 5000, perDay: 120000 });
    expect(tierLimits(SETTINGS, user('enterprise'))).toEqual({ perHour: 100000, perDay: 2400000 });
    expect(tierLimits(SETTINGS, user('free', 5000))).toEqual({ perHour: 100, perDay: 2400 });
  });
});

describe('planChecks', () => {
  const key = (...parts: string[]) => 'p:' + parts.join(':');

  it('plans endpoint, hourly and daily counters under one hash tag per user', () => {
    const checks = planChecks(SETTINGS, { kind: 'user', id: 'u1', tier: 'free', customPerHour: null }, endpointOf('POST', '/screen', '/v1'), key);
    // The hour is an exact log (bucket 0): a request counts for exactly 3600 s.
    expect(checks.map((x) => [x.kind, x.key, x.limit, x.windowS, x.bucketS])).toEqual([
      ['endpoint', 'p:rl:{u:u1}:el:post_screen', 50, 3600, 0],
      ['tier_hour', 'p:rl:{u:u1}:hl', 100, 3600, 0],
      ['tier_day', 'p:rl:{u:u1}:d24', 2400, 86400, 3600],
    ]);
  });

  it('gives a route counted as POST /screen (the /screening alias) the same counter key as /screen', () => {
    const anon = { kind: 'address', address: '1.2.3.4' } as const;
    const ka = planChecks(SETTINGS, anon, endpointOf('POST', '/screen', '/api/v1'), key)[0]!.key;
    const kb = planChecks(SETTINGS, anon, endpointOf('POST', '/screen', '/v1'), key)[0]!.key;
    expect(ka).toBe('p:rl:{a:1.2.3.4}:el:post_screen');
    expect(kb).toBe(ka);
  });
});

describe('addressKey', () => {
  it('unwraps IPv4-mapped IPv6 and keys other IPv6 addresses by their /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey(undefined)).toBe('unknown');
  });
});
