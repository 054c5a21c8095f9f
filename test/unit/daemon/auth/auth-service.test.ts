import { describe, expect, it, vi } from 'vitest';
import { createDecoyHash, verifyPassword } from '../../../../daemon/auth/passwords.js';

vi.mock('../../../../daemon/auth/passwords.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../../daemon/auth/passwords.js')>();
  return { ...real, createDecoyHash: vi.fn(real.createDecoyHash), verifyPassword: vi.fn(real.verifyPassword) };
});

const { createAuthService } = await import('../../../../daemon/auth/auth-service.js');

describe('auth service: logins for unknown emails', () => {
  it('makes the decoy hash when the service is created, so the first unknown-email login only verifies', async () => {
    // Given a new auth service over a users repository that knows nobody
    vi.mocked(createDecoyHash).mockClear();
    const users = { findByEmail: async () => undefined } as unknown as Parameters<typeof createAuthService>[0]['users'];
    const auth = createAuthService({
      users,
      refreshTokens: {} as never,
      tokens: {} as never,
      clock: { now: () => Date.now() } as never,
      refreshTtlSeconds: 60,
      revokeAccess: async () => undefined,
    });
    // Then the decoy already exists
    expect(createDecoyHash).toHaveBeenCalledTimes(1);
    const decoy = vi.mocked(createDecoyHash).mock.results[0]!.value as string;
    // When the first and second logins for unknown emails arrive
    vi.mocked(verifyPassword).mockClear();
    await expect(auth.login('ghost@example.com', 'whatever pw')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(auth.login('ghost2@example.com', 'whatever pw')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // Then each did exactly one verification against that decoy and created nothing more
    expect(createDecoyHash).toHaveBeenCalledTimes(1);
    expect(vi.mocked(verifyPassword).mock.calls).toEqual([
      ['whatever pw', decoy],
      ['whatever pw', decoy],
    ]);
  });
});
