import { describe, expect, it } from 'vitest';
import { isLoadtestExempt, toPublicUser, type UserRow } from '../../../../daemon/store/users-repo.js';

const row = (until: string | null): UserRow => ({
  id: 'u1', email: 'me@example.com', name: null, password_hash: 'h', tier: 'free', role: 'user', rate_limit_per_hour: null,
  loadtest_exempt_until: until, loadtest_exempt_by: 'ops@example.com', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
});

describe('load-test exemption on the account row', () => {
  it('is in force until its end, then ends by itself without anyone clearing it', () => {
    const until = '2026-01-01T02:00:00.000Z';
    expect(isLoadtestExempt(row(until), Date.parse('2026-01-01T01:59:59.999Z'))).toBe(true);
    expect(isLoadtestExempt(row(until), Date.parse(until))).toBe(false);
    expect(isLoadtestExempt(row(null), 0)).toBe(false);
  });

  it('shows its end on the public account only while in force, and never who granted it', () => {
    const until = '2026-01-01T02:00:00.000Z';
    expect(toPublicUser(row(until), Date.parse('2026-01-01T01:00:00Z'))).toMatchObject({ loadtest_exempt_until: until });
    expect(toPublicUser(row(until), Date.parse('2026-01-01T03:00:00Z')).loadtest_exempt_until).toBeNull();
    expect(toPublicUser(row(until), 0)).not.toHaveProperty('loadtest_exempt_by');
    expect(toPublicUser(row(until), 0)).not.toHaveProperty('password_hash');
  });
});
