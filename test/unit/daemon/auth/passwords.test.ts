import { describe, expect, it } from 'vitest';
import { createDecoyHash, hashPassword, verifyPassword } from '../../../../daemon/auth/passwords.js';

describe('decoy hash for unknown emails', () => {
  it('has the scheme and cost parameters of a real hash, and no password verifies against it', async () => {
    // Given a real hash and a decoy
    const real = await hashPassword('correct horse battery');
    const decoy = createDecoyHash();
    // Then they differ only in salt and key (same scheme, N, r, p: same cost to verify)
    expect(decoy.split('$').slice(0, 4)).toEqual(real.split('$').slice(0, 4));
    expect(decoy.split('$')).toHaveLength(real.split('$').length);
    // And nothing verifies against the decoy, while the real hash still works
    expect(await verifyPassword('correct horse battery', decoy)).toBe(false);
    expect(await verifyPassword('', decoy)).toBe(false);
    expect(await verifyPassword('correct horse battery', real)).toBe(true);
  });

});
