/**
 * Transparent re-hashing: a hash made with cheaper scrypt parameters than the daemon's
 * still logs in, and is replaced by one with the daemon's parameters at that login (never
 * at a failed one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../../daemon/auth/passwords.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('password re-hash at login', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // The daemon hashes with N=2^13 (production: 2^17; see test/unit/daemon/auth/passwords.test.ts)
    t = await startTestDaemon('sec-rehash', { password_scrypt_log_n: 13 });
  });
  afterAll(() => t?.close());

  it('Given an account hashed with N=2^11, when its owner logs in, then the hash is replaced with N=2^13', async () => {
    const { users } = t.daemon.context().store;
    const old = await createPasswordHasher({ logN: 11 }).hash('old but long enough');
    const row = await users.create({ email: 'legacy@example.com', name: null, password_hash: old });
    const nOf = async () => (await users.findById(row.id))!.password_hash.split('$')[1];
    const login = (password: string) => t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'legacy@example.com', password } });
    // A wrong password changes nothing
    expect((await login('wrong password!')).status).toBe(401);
    expect(await nOf()).toBe('2048');
    // The right one logs in and upgrades the stored hash, which keeps working
    expect((await login('old but long enough')).status).toBe(200);
    expect(await nOf()).toBe('8192');
    expect((await login('old but long enough')).status).toBe(200);
  });
});
