import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'root@example.com', password: 'admin-password-1' };
const PASSWORD = 'correct horse battery';

describe('stockscreen admin users', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const bob = `bob-${Date.now()}@example.com`;
  const cli = async (argv: string[], stdin = '') => {
    const io = fakeIO({ stdin });
    return { code: await run(['--url', t.url, ...argv], io, e.env), io };
  };
  const asAdmin = (argv: string[]) => cli(['--profile', 'admin', ...argv]);

  beforeAll(async () => {
    t = await startTestDaemon('cli-admin', { admin_email: ADMIN.email, admin_password: ADMIN.password, rate_limit: { enabled: false } });
    e = await tempEnv();
    expect((await cli(['--profile', 'admin', 'login', '--email', ADMIN.email, '--password-stdin'], ADMIN.password)).code).toBe(0);
    expect((await cli(['register', '--email', bob, '--password-stdin'], PASSWORD)).code).toBe(0);
    expect((await cli(['login', '--email', bob, '--password-stdin'], PASSWORD)).code).toBe(0);
  });
  afterAll(async () => {
    await t.close();
    await e.cleanup();
  });

  it('changes a tier by email, effective for the user at once', async () => {
    // When the admin sets bob's tier by email
    const res = await asAdmin(['admin', 'users', 'set-tier', bob, 'pro']);
    // Then the updated account is printed (TSV: id, email, name, tier, role, created)
    expect(res.code).toBe(0);
    expect(res.io.out().split('\t').slice(1, 5)).toEqual([bob, '', 'pro', 'user']);
    // And bob sees the new tier
    expect((await cli(['whoami'])).io.out().split('\t')[3]).toBe('pro');
  });

  it('changes a role by id and prints exactly the API response with --json', async () => {
    const id = (await cli(['whoami'])).io.out().split('\t')[0]!;
    const res = await asAdmin(['--json', 'admin', 'users', 'set-role', id, 'admin']);
    expect(res.code).toBe(0);
    const body = JSON.parse(res.io.out());
    expect(body.status).toBe('success');
    expect(body.data).toMatchObject({ id, email: bob, role: 'admin' });
    expect(body.meta.request_id).toMatch(/^[0-9a-f-]{36}$/);
    await asAdmin(['admin', 'users', 'set-role', id, 'user']);
  });

  it('lists accounts: one TSV row per account, the API body with --json', async () => {
    const rows = (await asAdmin(['admin', 'users', 'list'])).io.out().trimEnd().split('\n');
    const emails = rows.map((r) => r.split('\t')[1]);
    expect(emails).toContain(ADMIN.email);
    expect(emails).toContain(bob);
    const body = JSON.parse((await asAdmin(['--json', 'admin', 'users', 'list', '--limit', '1'])).io.out());
    expect(body.data).toHaveLength(1);
    expect(body.meta).toMatchObject({ page: 1, per_page: 1, total: rows.length });
  });

  it('answers a non-admin with FORBIDDEN (exit 1) and a hint', async () => {
    const res = await cli(['admin', 'users', 'list']);
    expect(res.code).toBe(1);
    expect(res.io.err()).toMatch(/^error: This endpoint requires the admin role \(FORBIDDEN, request [0-9a-f-]{36}\)\nhint: /);
  });

  it('reports an unknown email as NOT_FOUND and an unknown tier as a usage error', async () => {
    const missing = await asAdmin(['admin', 'users', 'set-tier', 'nobody@example.com', 'pro']);
    expect(missing.code).toBe(1);
    expect(missing.io.err()).toContain('no account with email nobody@example.com (NOT_FOUND)');
    const bad = await asAdmin(['admin', 'users', 'set-tier', bob, 'platinum']);
    expect(bad.code).toBe(2);
    expect(bad.io.err()).toContain('platinum');
  });
});
