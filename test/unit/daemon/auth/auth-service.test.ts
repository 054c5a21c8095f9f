import { describe, expect, it, vi } from 'vitest';
import { createAuthService } from '../../../../daemon/auth/auth-service.js';
import { createPasswordHasher } from '../../../../daemon/auth/passwords.js';

describe('auth service: logins for unknown emails', () => {
  it('makes the decoy hash when the service is created, so the first unknown-email login only verifies', async () => {
    // Given a new auth service over a users repository that knows nobody, with a watched hasher
    const hasher = createPasswordHasher({ logN: 10 });
    const decoySpy = vi.spyOn(hasher, 'decoy');
    const verifySpy = vi.spyOn(hasher, 'verify');
    const users = { findByEmail: async () => undefined } as unknown as Parameters<typeof createAuthService>[0]['users'];
    const auth = createAuthService({
      users,
      refreshTokens: {} as never,
      tokens: {} as never,
      clock: { now: () => Date.now() } as never,
      refreshTtlSeconds: 60,
      passwords: hasher,
      revokeAccess: async () => undefined,
    });
    // Then the decoy already exists
    expect(decoySpy).toHaveBeenCalledTimes(1);
    const decoy = decoySpy.mock.results[0]!.value as string;
    // When the first and second logins for unknown emails arrive
    await expect(auth.login('ghost@example.com', 'whatever pw')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(auth.login('ghost2@example.com', 'whatever pw')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // Then each did exactly one verification against that decoy and created nothing more
    expect(decoySpy).toHaveBeenCalledTimes(1);
    expect(verifySpy.mock.calls).toEqual([
      ['whatever pw', decoy],
      ['whatever pw', decoy],
    ]);
  });
});
