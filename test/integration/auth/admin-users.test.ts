/**
 * PATCH /admin/users/{id} with rate_limit_per_hour (the enterprise tier's custom limit): it is
 * accepted for enterprise accounts and takes effect on the next request; for any other
 * tier it would do nothing, so it is refused with 400 rather than stored and ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('admin: custom hourly limits', () => {
  let t: TestDaemon;
  let admin: string;
  beforeAll(async () => {
    t = await startTestDaemon('admin-users', { admin_email: 'root@example.com', admin_password: 'admin-password-1', rate_limit: { enabled: true } });
    admin = (await t.login('root@example.com', 'admin-password-1')).access_token;
  });
  afterAll(() => t.close());

  const patch = (id: string, json: unknown) => t.request(`/api/v1/admin/users/${id}`, { method: 'PATCH', json, token: admin });
  const body = async (res: Response) => (await res.json()) as any;

  it('refuses a custom limit for an account that is not enterprise, naming the field', async () => {
    // Given a free account
    const user = await t.login();
    // When an admin sets a custom hourly limit alone
    const res = await patch(user.id, { rate_limit_per_hour: 5000 });
    // Then 400 INVALID_REQUEST explains why, and nothing changed
    expect(res.status).toBe(400);
    const { error } = await body(res);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.details.rate_limit_per_hour).toMatch(/enterprise/);
    const list = await body(await t.request('/api/v1/admin/users?limit=500', { token: admin }));
    expect(list.data.find((u: any) => u.id === user.id)).toMatchObject({ tier: 'free', rate_limit_per_hour: null });
  });

  it('applies a custom limit set with (or after) the enterprise tier, and clears it when the account leaves enterprise', async () => {
    // Given a free account
    const user = await t.login();
    // When an admin makes it enterprise with a custom limit in one request
    const res = await patch(user.id, { tier: 'enterprise', rate_limit_per_hour: 5000 });
    // Then the account shows it, and the user's next request is limited by it
    expect(res.status).toBe(200);
    expect((await body(res)).data).toMatchObject({ tier: 'enterprise', rate_limit_per_hour: 5000 });
    const me = await t.request('/api/v1/users/me', { token: user.access_token });
    expect(me.headers.get('x-ratelimit-limit')).toBe('5000');
    // And an enterprise account's limit can be changed on its own
    expect((await body(await patch(user.id, { rate_limit_per_hour: 7000 }))).data.rate_limit_per_hour).toBe(7000);
    // When it moves to another tier, the custom limit no longer applies and is cleared
    const down = await body(await patch(user.id, { tier: 'pro' }));
    expect(down.data).toMatchObject({ tier: 'pro', rate_limit_per_hour: null });
    const after = await t.request('/api/v1/users/me', { token: user.access_token });
    expect(after.headers.get('x-ratelimit-limit')).toBe('10000');
  });

  it('answers 404 for an unknown account, whatever the patch', async () => {
    expect((await patch('00000000-0000-4000-8000-000000000000', { rate_limit_per_hour: 5 })).status).toBe(404);
  });
});
