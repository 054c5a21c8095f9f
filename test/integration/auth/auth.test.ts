import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { createManualClock } from '../../../daemon/infra/clock.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const PASSWORD = 'correct horse battery';

describe('authentication', () => {
  const clock = createManualClock(Date.parse('2026-03-09T00:00:00Z'));
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('auth', { admin_email: 'root@example.com', admin_password: 'admin-password-1' }, { clock });
  });
  afterAll(() => t.close());

  const post = (path: string, json: unknown, token?: string) => t.request(`/api/v1${path}`, { method: 'POST', json, token });
  const login = async (email: string, password = PASSWORD) => (await (await post('/auth/login', { email, password })).json()) as any;

  it('registers an account without exposing password fields', async () => {
    const res = await post('/auth/register', { email: 'Alice@Example.com', password: PASSWORD, name: 'Alice' });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.data).toMatchObject({ email: 'alice@example.com', name: 'Alice', tier: 'free', role: 'user' });
    expect(JSON.stringify(body)).not.toMatch(/password|scrypt/);
  });

  it('rejects a duplicate email with 409, case-insensitively', async () => {
    await post('/auth/register', { email: 'dup@example.com', password: PASSWORD });
    const res = await post('/auth/register', { email: 'DUP@example.com', password: PASSWORD });
    expect(res.status).toBe(409);
    expect(((await res.json()) as any).error.code).toBe('CONFLICT');
  });

  it('rejects a weak password and a malformed email with field details', async () => {
    const res = await post('/auth/register', { email: 'nope', password: '1234567' });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as any;
    expect(error.details.email).toMatch(/email/);
    expect(error.details.password).toMatch(/10/);
  });

  it('logs in with the token response both in data and at the top level', async () => {
    await post('/auth/register', { email: 'bob@example.com', password: PASSWORD });
    const res = await post('/auth/login', { email: 'bob@example.com', password: PASSWORD });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(body.data.refresh_token).toBeTypeOf('string');
    expect(body.access_token).toBe(body.data.access_token);
    expect(body.token_type).toBe('bearer');
    expect(body.expires_in).toBe(3600);
    const me = await t.request('/api/v1/users/me', { token: body.access_token });
    expect((((await me.json()) as any)).data).toMatchObject({ email: 'bob@example.com', tier: 'free', role: 'user' });
  });

  it('answers a wrong password and an unknown email identically with 401', async () => {
    const wrong = await post('/auth/login', { email: 'bob@example.com', password: 'wrong password' });
    const unknown = await post('/auth/login', { email: 'ghost@example.com', password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect((((await wrong.json()) as any)).error.message).toBe((((await unknown.json()) as any)).error.message);
  });

  it('requires a token on protected endpoints: 401 with WWW-Authenticate', async () => {
    const res = await t.request('/api/v1/users/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await res.json()) as any).error.code).toBe('UNAUTHORIZED');
  });

  it('rejects a tampered token and one signed with another key or algorithm', async () => {
    const { access_token } = await login('bob@example.com');
    const [h, p, s] = access_token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = [h, Buffer.from(JSON.stringify({ ...payload, role: 'admin' })).toString('base64url'), s].join('.');
    const otherKey = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(48)));
    const none = [Buffer.from('{"alg":"none"}').toString('base64url'), p, ''].join('.');
    for (const token of [forged, otherKey, none, 'garbage']) {
      const res = await t.request('/api/v1/users/me', { token });
      expect(res.status).toBe(401);
    }
  });

  it('rejects an expired access token (clock moved past expires_in)', async () => {
    const { access_token } = await login('bob@example.com');
    expect((await t.request('/api/v1/users/me', { token: access_token })).status).toBe(200);
    clock.advance(3601_000);
    const res = await t.request('/api/v1/users/me', { token: access_token });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.message).toMatch(/expired/i);
  });

  it('rotates refresh tokens and revokes the whole family when an old one is reused', async () => {
    const first = (await login('bob@example.com')).data;
    const second = (((await (await post('/auth/refresh', { refresh_token: first.refresh_token })).json()) as any)).data;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await t.request('/api/v1/users/me', { token: second.access_token })).status).toBe(200);
    // Reusing the rotated-out token is treated as theft: 401, and the newer token dies too.
    const reuse = await post('/auth/refresh', { refresh_token: first.refresh_token });
    expect(reuse.status).toBe(401);
    expect((((await reuse.json()) as any)).error.details.reason).toBe('reused');
    const afterTheft = await post('/auth/refresh', { refresh_token: second.refresh_token });
    expect(afterTheft.status).toBe(401);
  });

  it('logout revokes the current access token and the refresh family', async () => {
    const tokens = (await login('bob@example.com')).data;
    const out = await post('/auth/logout', { refresh_token: tokens.refresh_token }, tokens.access_token);
    expect(out.status).toBe(204);
    const me = await t.request('/api/v1/users/me', { token: tokens.access_token });
    expect(me.status).toBe(401);
    expect((((await me.json()) as any)).error.details.reason).toBe('revoked');
    expect((await post('/auth/refresh', { refresh_token: tokens.refresh_token })).status).toBe(401);
  });

  it('distinguishes 401 (no token) from 403 (not an admin) on admin endpoints', async () => {
    const user = (await login('bob@example.com')).data;
    expect((await t.request('/api/v1/admin/users')).status).toBe(401);
    const forbidden = await t.request('/api/v1/admin/users', { token: user.access_token });
    expect(forbidden.status).toBe(403);
    expect((((await forbidden.json()) as any)).error.code).toBe('FORBIDDEN');
  });

  it('lets the bootstrapped admin list users and change a tier, effective at once', async () => {
    const admin = (await login('root@example.com', 'admin-password-1')).data;
    const bob = (await login('bob@example.com')).data;
    const list = (await (await t.request('/api/v1/admin/users?limit=500', { token: admin.access_token })).json()) as any;
    const bobRow = list.data.find((u: any) => u.email === 'bob@example.com');
    expect(bobRow.tier).toBe('free');
    const patched = await t.request(`/api/v1/admin/users/${bobRow.id}`, { method: 'PATCH', json: { tier: 'pro' }, token: admin.access_token });
    expect(patched.status).toBe(200);
    // The same (older) token now reports the new tier.
    const me = (await (await t.request('/api/v1/users/me', { token: bob.access_token })).json()) as any;
    expect(me.data.tier).toBe('pro');
    const bad = await t.request(`/api/v1/admin/users/${bobRow.id}`, { method: 'PATCH', json: { tier: 'platinum' }, token: admin.access_token });
    expect(bad.status).toBe(400);
    expect((((await bad.json()) as any)).error.details.tier).toBeDefined();
    const missing = await t.request('/api/v1/admin/users/00000000-0000-4000-8000-000000000000', { method: 'PATCH', json: { tier: 'pro' }, token: admin.access_token });
    expect(missing.status).toBe(404);
  });
});
