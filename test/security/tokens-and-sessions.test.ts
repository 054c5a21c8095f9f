/**
 * Access tokens a forger could build (alg none, wrong key, tampered claims, expired, wrong
 * issuer, not yet valid, another algorithm) and refresh-token abuse (reuse, logout).
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, startSecurityDaemon, type SecurityDaemon } from './harness.js';

const SECRET = 'test-secret-test-secret-test-secret-0123456789';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('access-token forgery', () => {
  let s: SecurityDaemon;
  let user: { id: string; access_token: string; refresh_token: string };
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-jwt');
    user = await s.t.login();
  });
  afterAll(() => s?.t.close());

  const me = (token: string) => s.t.request('/api/v1/users/me', { token });
  const now = () => Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, unknown>, key = SECRET, alg = 'HS256') =>
    new SignJWT({ tier: 'free', role: 'user', ...claims })
      .setProtectedHeader({ alg, typ: 'JWT' })
      .setSubject(user.id)
      .setJti(crypto.randomUUID())
      .setIssuer((claims.iss as string | undefined) ?? 'stockscreend')
      .setIssuedAt(now() - 10)
      .setExpirationTime((claims.exp as number | undefined) ?? now() + 600)
      .sign(new TextEncoder().encode(key));

  it('accepts a genuine token (the control case)', async () => {
    expect((await me(user.access_token)).status).toBe(200);
    expect((await me(await sign({}))).status).toBe(200);
  });

  it.each([
    ['alg none, no signature', async () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: user.id, jti: 'x', tier: 'free', role: 'admin', iss: 'stockscreend', exp: now() + 600 })}.`],
    ['signed with another key', () => sign({}, 'another-secret-another-secret-another-secret')],
    ['claims tampered after signing (role admin)', async () => {
      const [h, p, sig] = user.access_token.split('.');
      const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
      return `${h}.${b64({ ...claims, role: 'admin', tier: 'enterprise' })}.${sig}`;
    }],
    ['expired', () => sign({ exp: now() - 60 })],
    ['another issuer', () => sign({ iss: 'evil' })],
    ['not valid before an hour from now (nbf)', () => sign({ nbf: now() + 3600 })],
    ['HS512 instead of the pinned HS256', () => sign({}, SECRET, 'HS512')],
    ['garbage', async () => 'not.a.jwt'],
  ])('rejects a token %s with 401 and the envelope', async (_name, make) => {
    const res = await me(await make());
    const body = await expectError(res, 401, 'UNAUTHORIZED');
    expect(JSON.stringify(body)).not.toContain(user.id);
  });

  it('rejects a forged token on an admin route with 401, not 403', async () => {
    const forged = `${b64({ alg: 'none' })}.${b64({ sub: user.id, role: 'admin', tier: 'free', jti: 'j', iss: 'stockscreend', exp: now() + 600 })}.`;
    await expectError(await s.t.request('/api/v1/admin/users', { token: forged }), 401, 'UNAUTHORIZED');
  });

  it('reads the role from the account, not the token: a user with a validly signed role claim stays a user', async () => {
    await expectError(await s.t.request('/api/v1/admin/users', { token: await sign({ role: 'admin' }) }), 403, 'FORBIDDEN');
  });
});

describe('refresh tokens and logout', () => {
  let s: SecurityDaemon;
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-sessions');
  });
  afterAll(() => s?.t.close());

  const post = (path: string, json: unknown, token?: string) => s.t.request(`/api/v1${path}`, { method: 'POST', json, token });
  const refresh = (refresh_token: string) => post('/auth/refresh', { refresh_token });

  it('Given a rotated refresh token, when it is used again, then it and its whole family are refused', async () => {
    const u = await s.t.login();
    const first = await refresh(u.refresh_token);
    expect(first.status).toBe(200);
    const rotated = ((await first.json()) as any).data.refresh_token as string;
    await expectError(await refresh(u.refresh_token), 401, 'UNAUTHORIZED');
    await expectError(await refresh(rotated), 401, 'UNAUTHORIZED');
  });

  it('Given a logout with only the access token, then that session cannot be refreshed, and the access token is dead', async () => {
    const u = await s.t.login();
    const other = await post('/auth/login', { email: u.email, password: 'correct horse battery' });
    const otherRefresh = ((await other.json()) as any).data.refresh_token as string;
    // When the first session logs out without a body
    const out = await s.t.request('/api/v1/auth/logout', { method: 'POST', token: u.access_token });
    expect(out.status).toBe(204);
    // Then its refresh token is refused and its access token too
    expect((await expectError(await refresh(u.refresh_token), 401)).error.details.reason).toBe('revoked');
    await expectError(await s.t.request('/api/v1/users/me', { token: u.access_token }), 401);
    // And the user's other session lives on
    expect((await refresh(otherRefresh)).status).toBe(200);
  });

  it('Given a session refreshed once, when the new access token logs out, then the rotated refresh token is refused too', async () => {
    const u = await s.t.login();
    const pair = ((await (await refresh(u.refresh_token)).json()) as any).data;
    expect((await s.t.request('/api/v1/auth/logout', { method: 'POST', token: pair.access_token })).status).toBe(204);
    await expectError(await refresh(pair.refresh_token), 401);
  });

  it("ignores another user's refresh token given at logout (no cross-account revocation)", async () => {
    const victim = await s.t.login();
    const attacker = await s.t.login();
    expect((await post('/auth/logout', { refresh_token: victim.refresh_token }, attacker.access_token)).status).toBe(204);
    expect((await refresh(victim.refresh_token)).status).toBe(200);
  });
});
