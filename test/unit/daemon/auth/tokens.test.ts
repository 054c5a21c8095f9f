import { describe, expect, it } from 'vitest';
import { createTokenService } from '../../../../daemon/auth/tokens.js';
import { systemClock } from '../../../../daemon/infra/clock.js';

describe('access tokens: signature and revocation as two steps', () => {
  const revoked = new Set<string>();
  const tokens = createTokenService({ secret: 'tokens-unit-test-secret-0123456789abcdef', ttlSeconds: 60, clock: systemClock, isRevoked: async ({ jti }) => revoked.has(jti) });

  it('names the caller of a signed token before its revocation is known, and refuses it once revoked', async () => {
    // Given a signed token whose id is then revoked (a logout)
    const signed = await tokens.sign({ id: 'user-1', tier: 'pro', role: 'user' });
    revoked.add(signed.jti);
    // Then the signature check alone still names the caller (the rate limiter counts it)
    const caller = await tokens.verifySignature(signed.token);
    expect(caller).toMatchObject({ id: 'user-1', tier: 'pro', role: 'user', jti: signed.jti });
    // But the revocation step, and the whole verification, refuse it
    await expect(tokens.checkRevoked(caller)).rejects.toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'revoked' } });
    await expect(tokens.verify(signed.token)).rejects.toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'revoked' } });
  });

  it('rejects a tampered token at the signature step', async () => {
    const signed = await tokens.sign({ id: 'user-2', tier: 'free', role: 'user' });
    const [head, body, sig] = signed.token.split('.');
    const tampered = `${head}.${body}.${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(tokens.verifySignature(tampered)).rejects.toMatchObject({ code: 'UNAUTHORIZED', details: { reason: 'invalid' } });
  });
});
