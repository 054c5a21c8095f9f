import { describe, expect, it } from 'vitest';
import {
  addressKey,
  classifyRequest,
  compileEndpointRules,
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
const classify = (method: string, path: string) => classifyRequest(method, path, RULES, PREFIXES);
const endpointOf = (method: string, path: string) => {
  const c = classify(method, path);
  return c.exempt ? 'exempt' : c.endpoint ? `${c.endpoint.rule.name} @ ${c.endpoint.path}` : 'tier only';
};

describe('classifyRequest', () => {
  it('exempts the spec list and docs assets, whether or not a route exists', () => {
    for (const path of ['/health', '/health/db', '/health/redis', '/docs', '/docs/', '/docs/init.js', '/docs/assets/swagger-ui.css', '/redoc', '/redoc/assets/redoc.standalone.js', '/openapi.json', '/metrics']) {
      expect(endpointOf('GET', path), path).toBe('exempt');
    }
    expect(endpointOf('GET', '/api/v1/screen/templates')).toBe('exempt');
    expect(endpointOf('GET', '/v1/screen/templates/')).toBe('exempt');
    expect(endpointOf('HEAD', '/api/v1/screen/templates')).toBe('exempt');
  });

  it('does not exempt look-alikes or other methods on exempt paths', () => {
    expect(endpointOf('POST', '/api/v1/screen/templates')).toBe('tier only');
    expect(endpointOf('POST', '/api/v1/screen/templates/value')).toBe('tier only');
    expect(endpointOf('GET', '/api/v1/healthy')).toBe('tier only');
    expect(endpointOf('GET', '/api/v1/openapi.jsonx')).toBe('tier only');
  });

  it('maps both prefixes, the /screening alias, case and trailing slashes to one endpoint', () => {
    expect(endpointOf('POST', '/api/v1/screen')).toBe('POST /screen @ /api/v1/screen');
    expect(endpointOf('POST', '/v1/screen')).toBe('POST /screen @ /v1/screen');
    expect(endpointOf('POST', '/api/v1/screening')).toBe('POST /screen @ /api/v1/screening');
    expect(endpointOf('POST', '/API/V1/SCREEN/')).toBe('POST /screen @ /api/v1/screen');
    expect(endpointOf('GET', '/api/v1/screen')).toBe('tier only');
  });

  it('counts GET /stocks/{code} over all codes, but not the stock sub-resources', () => {
    expect(endpointOf('GET', '/api/v1/stocks/005930')).toBe('GET /stocks/{code} @ /api/v1/stocks/{code}');
    expect(endpointOf('HEAD', '/v1/stocks/000660')).toBe('GET /stocks/{code} @ /v1/stocks/{code}');
    expect(endpointOf('GET', '/api/v1/stocks/005930/history')).toBe('tier only');
    expect(endpointOf('GET', '/api/v1/stocks')).toBe('tier only');
  });

  it('matches the auth endpoints', () => {
    expect(endpointOf('POST', '/api/v1/auth/login')).toBe('POST /auth/login @ /api/v1/auth/login');
    expect(endpointOf('POST', '/v1/auth/register')).toBe('POST /auth/register @ /v1/auth/register');
    expect(endpointOf('POST', '/api/v1/auth/refresh')).toBe('tier only');
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
    const c = classify('POST', '/v1/screen');
    const checks = planChecks(SETTINGS, { kind: 'user', id: 'u1', tier: 'free', customPerHour: null }, c.exempt ? undefined : c.endpoint, key);
    expect(checks.map((x) => [x.kind, x.key, x.limit, x.windowS, x.bucketS])).toEqual([
      ['endpoint', 'p:rl:{u:u1}:e:post_screen', 50, 3600, 60],
      ['tier_hour', 'p:rl:{u:u1}:h', 100, 3600, 60],
      ['tier_day', 'p:rl:{u:u1}:d', 2400, 86400, 3600],
    ]);
  });

  it('gives the alias the same counter key as /screen', () => {
    const a = classify('POST', '/api/v1/screening');
    const b = classify('POST', '/v1/screen');
    const anon = { kind: 'address', address: '1.2.3.4' } as const;
    const ka = planChecks(SETTINGS, anon, a.exempt ? undefined : a.endpoint, key)[0]!.key;
    const kb = planChecks(SETTINGS, anon, b.exempt ? undefined : b.endpoint, key)[0]!.key;
    expect(ka).toBe('p:rl:{a:1.2.3.4}:e:post_screen');
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
