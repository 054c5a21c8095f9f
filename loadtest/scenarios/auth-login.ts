/**
 * `auth-login`: POST /auth/login with real credentials. Password hashing makes this the
 * costliest endpoint per request; the login endpoint limit (10/h per address by default)
 * throttles it unless the daemon raises `rate_limit.endpoints["POST /auth/login"]`.
 */
import { httpRows } from '../http-rows.js';
import type { Scenario } from '../types.js';
import { restRun } from './rest.js';

/** The login scenario. */
export const authLogin: Scenario = {
  name: 'auth-login',
  description: 'POST /api/v1/auth/login with a real account',
  async run(ctx) {
    const credentials = await ctx.session.credentials();
    const result = await restRun(ctx, [{ method: 'POST', path: '/api/v1/auth/login', body: () => credentials }], { token: null });
    return httpRows('auth-login', result);
  },
};
