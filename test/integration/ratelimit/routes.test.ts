/**
 * The limiter decides from the path alone (it runs before the router), so its tables must
 * agree with the routes the daemon actually registers: every route marked
 * `rateLimitExempt` is exempt, every other one is limited, and each endpoint limit whose
 * route exists matches it under both prefixes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIXES } from '../../../daemon/http/app.js';
import { classifyRequest, compileEndpointRules } from '../../../daemon/ratelimit/policy.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('limiter tables vs registered routes', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('rl-routes');
  });
  afterAll(() => t.close());

  const concrete = (path: string) => path.replace(/:\w+/g, 'x1');

  it('exempts exactly the routes marked rateLimitExempt', () => {
    const { config, http } = t.daemon.context();
    const rules = compileEndpointRules(config.rate_limit.endpoints);
    const mismatches = http.routes
      .filter((r) => classifyRequest(r.method, concrete(r.path), rules, API_PREFIXES).exempt !== Boolean(r.rateLimitExempt))
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(mismatches).toEqual([]);
  });

  it('matches each registered endpoint-limited route under both prefixes', () => {
    const { config, http } = t.daemon.context();
    const rules = compileEndpointRules(config.rate_limit.endpoints);
    const limited = http.routes.filter((r) => {
      const key = `${r.method.toUpperCase()} ${r.path.replace(API_PREFIXES[0], '').replace(/:(\w+)/g, '{$1}')}`;
      return key in config.rate_limit.endpoints;
    });
    // Registered today: GET /stocks/{code}, POST /auth/register, POST /auth/login.
    expect(limited.length).toBeGreaterThanOrEqual(3);
    for (const r of limited) {
      for (const prefix of API_PREFIXES) {
        const path = concrete(r.path).replace(API_PREFIXES[0], prefix);
        const c = classifyRequest(r.method, path, rules, API_PREFIXES);
        expect(c.exempt ? undefined : c.endpoint?.path, path).toBe(prefix + r.path.replace(API_PREFIXES[0], '').replace(/:(\w+)/g, '{$1}'));
      }
    }
  });
});
