/**
 * `auth-get`: GET /users/me with the bench token, the cheapest authenticated request: run
 * against a daemon with `rate_limit.enabled` true and false, it prices the rate limiter.
 */
import { httpRows } from '../http-rows.js';
import type { Scenario } from '../types.js';
import { restRun } from './rest.js';

/** The authenticated-GET scenario. */
export const authGet: Scenario = {
  name: 'auth-get',
  description: 'GET /api/v1/users/me with a bearer token (rate limiter cost when run with limits on and off)',
  async run(ctx) {
    const token = await ctx.session.token();
    const result = await restRun(ctx, [{ method: 'GET', path: '/api/v1/users/me' }], { token });
    return httpRows('auth-get', result);
  },
};
