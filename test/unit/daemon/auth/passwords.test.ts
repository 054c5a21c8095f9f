import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../../daemon/config.js';
import { createPasswordHasher, DEFAULT_SCRYPT_LOG_N, isCommonPassword } from '../../../../daemon/auth/passwords.js';

describe('password hashing', () => {
  it('has the scheme and cost parameters of a real hash in the decoy, and no password verifies against it', async () => {
    // Given a real hash and a decoy of one hasher
    const hasher = createPasswordHasher({ logN: 10 });
    const real = await hasher.hash('correct horse battery');
    const decoy = hasher.decoy();
    // Then they differ only in salt and key (same scheme, N, r, p: same cost to verify)
    expect(decoy.split('$').slice(0, 4)).toEqual(real.split('$').slice(0, 4));
    expect(decoy.split('$')).toHaveLength(real.split('$').length);
    // And nothing verifies against the decoy, while the real hash still works
    expect(await hasher.verify('correct horse battery', decoy)).toBe(false);
    expect(await hasher.verify('', decoy)).toBe(false);
    expect(await hasher.verify('correct horse battery', real)).toBe(true);
  });

  it('asks for a re-hash of cheaper or malformed hashes only, and verifies hashes of any parameters', async () => {
    // Given a hash made with N=2^10 and a hasher whose target is N=2^12
    const old = await createPasswordHasher({ logN: 10 }).hash('correct horse battery');
    const hasher = createPasswordHasher({ logN: 12 });
    const current = await hasher.hash('correct horse battery');
    // Then the old one still verifies but needs a re-hash; the current one does not; garbage does
    expect(await hasher.verify('correct horse battery', old)).toBe(true);
    expect(hasher.needsRehash(old)).toBe(true);
    expect(hasher.needsRehash(current)).toBe(false);
    expect(hasher.needsRehash('plain')).toBe(true);
    // And a tampered row asking for an absurd cost is refused, not attempted
    expect(await hasher.verify('x', current.replace('$4096$', '$1073741824$'))).toBe(false);
  });

  it('uses the OWASP parameters by default: N=2^17, r=8, p=1, within Node maxmem', async () => {
    // Given the defaults of the hasher and of the configuration
    expect(DEFAULT_SCRYPT_LOG_N).toBe(17);
    expect(parseConfig({}, { env: {} }).password_scrypt_log_n).toBe(17);
    const hasher = createPasswordHasher();
    expect(hasher.params).toEqual({ N: 131072, r: 8, p: 1 });
    // When a password is hashed and verified at that cost (128 MiB: above Node's default maxmem)
    const stored = await hasher.hash('correct horse battery');
    // Then the stored form names those parameters and verifies
    expect(stored.split('$').slice(0, 4)).toEqual(['scrypt', '131072', '8', '1']);
    expect(await hasher.verify('correct horse battery', stored)).toBe(true);
  });

  it('knows the common passwords case-insensitively', () => {
    expect(isCommonPassword('1234567890')).toBe(true);
    expect(isCommonPassword('Password123')).toBe(true);
    expect(isCommonPassword('qwertyuiop')).toBe(true);
    expect(isCommonPassword('correct horse battery')).toBe(false);
  });
});
