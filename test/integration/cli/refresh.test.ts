import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type TempEnv } from './fake-io.js';

// The secret startTestDaemon configures, so the test can mint an already-expired token.
const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';
const PASSWORD = 'correct horse battery';

describe('automatic token refresh', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const file = () => join(e.root, 'config', 'stockscreen', 'credentials.json');
  const saved = async () => JSON.parse(await readFile(file(), 'utf8')).profiles.default;
  const patchSaved = async (patch: Record<string, string>) => {
    const content = JSON.parse(await readFile(file(), 'utf8'));
    Object.assign(content.profiles.default, patch);
    await writeFile(file(), JSON.stringify(content));
  };
  const cli = async (argv: string[]) => {
    const io = fakeIO({ stdin: PASSWORD });
    return { code: await run(['--url', t.url, ...argv], io, e.env), io };
  };

  beforeAll(async () => {
    t = await startTestDaemon('cli-refresh', { rate_limit: { enabled: false } });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    e = await tempEnv();
    const email = `refresh-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    expect((await cli(['register', '--email', email, '--password-stdin'])).code).toBe(0);
    expect((await cli(['login', '--email', email, '--password-stdin'])).code).toBe(0);
  });
  afterEach(() => e.cleanup());

  it('recovers from a corrupted access token by refreshing once, and saves the rotated pair', async () => {
    // Given saved credentials whose access token the server rejects as invalid
    const before = await saved();
    await patchSaved({ access_token: 'not-a-jwt' });
    // When whoami runs
    const res = await cli(['whoami']);
    // Then it succeeds transparently and the new pair is saved
    expect(res.code).toBe(0);
    expect(res.io.out()).toContain(before.email);
    expect(res.io.err()).toBe('');
    const after = await saved();
    expect(after.access_token).not.toBe('not-a-jwt');
    expect(after.refresh_token).not.toBe(before.refresh_token);
    // The new access token works on its own, and the old refresh token was consumed (rotation)
    expect((await t.request('/api/v1/users/me', { token: after.access_token })).status).toBe(200);
    const reuse = await t.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: before.refresh_token } });
    expect(reuse.status).toBe(401);
  });

  it('recovers from an expired access token', async () => {
    // Given an access token for the same user that expired a minute ago (signed like the daemon does)
    const me = JSON.parse((await cli(['--json', 'whoami'])).io.out()).data;
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ tier: me.tier, role: me.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(me.id)
      .setJti('00000000-0000-4000-8000-000000000000')
      .setIssuer('stockscreend')
      .setIssuedAt(now - 3700)
      .setExpirationTime(now - 60)
      .sign(new TextEncoder().encode(TEST_SECRET));
    const direct = await t.request('/api/v1/users/me', { token: expired });
    expect(((await direct.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('expired');
    await patchSaved({ access_token: expired });
    // When whoami runs, it refreshes and answers
    const res = await cli(['whoami']);
    expect(res.code).toBe(0);
    expect(res.io.out()).toContain(me.id);
    expect((await saved()).access_token).not.toBe(expired);
  });

  it('asks for a new login (exit 4) when the refresh token is no longer valid either', async () => {
    const before = await saved();
    // The pair is rotated behind the CLI's back, so the saved refresh token has been used
    const rotated = await t.request('/api/v1/auth/refresh', { method: 'POST', json: { refresh_token: before.refresh_token } });
    expect(rotated.status).toBe(200);
    await patchSaved({ access_token: 'not-a-jwt' });
    const res = await cli(['whoami']);
    expect(res.code).toBe(4);
    expect(res.io.err()).toMatch(/^error: Invalid access token \(UNAUTHORIZED, request [0-9a-f-]{36}\)\nhint: run `stockscreen login`\n$/);
  });
});
