/**
 * What a daemon keeps across restarts: the generated JWT signing key (generated
 * once and kept in the data dir with mode 0600, so tokens survive a restart; with PostgreSQL, in the database so every
 * daemon shares it), and the admin bootstrap, which creates the account or updates it.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../../daemon/config.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { testBackend } from '../../helpers/test-store.js';

describe('state kept across daemon restarts', () => {
  const running: TestDaemon[] = [];
  afterEach(async () => {
    // The last one owns the clean-up (keys and data dir); the others were stopped on the way.
    const last = running.pop();
    for (const d of running.splice(0)) await d.daemon.close();
    await last?.close();
  });

  /** Start a daemon; with `after`, on the same store and Redis prefix (a restart). */
  async function start(config: Partial<ConfigInput>, after?: TestDaemon): Promise<TestDaemon> {
    const shared = after ? { ...after.store, redis_prefix: after.prefix } : {};
    const t = await startTestDaemon('bootstrap', { ...shared, ...config });
    running.push(t);
    return t;
  }

  it('generates the JWT secret once (sqlite: <data-dir>/jwt-secret, mode 0600; PostgreSQL: the database) and reuses it after a restart', async () => {
    // Given a daemon started without STOCKSCREEN_JWT_SECRET, and a token it issued
    const first = await start({ jwt_secret: undefined });
    const user = await first.login();
    const file = join(first.dataDir, 'jwt-secret');
    const secret = testBackend() === 'sqlite' ? await readFile(file, 'utf8') : null;
    if (secret !== null) {
      expect(secret.trim().length).toBeGreaterThanOrEqual(32);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } else {
      // PostgreSQL keeps it in the database, where every daemon of the deployment finds it.
      await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    }
    // When the daemon restarts on the same data
    await first.daemon.close();
    const second = await start({ jwt_secret: undefined }, first);
    // Then the token from the first start is still valid, and the secret was not replaced
    const me = await second.request('/api/v1/users/me', { token: user.access_token });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { id: string } }).data.id).toBe(user.id);
    if (secret !== null) expect(await readFile(file, 'utf8')).toBe(secret);
  });

  it('promotes an existing account to admin and resets its password at start', async () => {
    // Given an ordinary account
    const first = await start({});
    const user = await first.login('boss@example.com', 'old password 1');
    await first.daemon.close();
    // When a daemon starts with that email as the admin bootstrap and a new password
    const second = await start({ admin_email: 'boss@example.com', admin_password: 'new password 2' }, first);
    // Then the old password no longer works and the new one does
    const login = (password: string) => second.request('/api/v1/auth/login', { method: 'POST', json: { email: 'boss@example.com', password } });
    expect((await login('old password 1')).status).toBe(401);
    const fresh = await login('new password 2');
    expect(fresh.status).toBe(200);
    // And it is the same account, now an admin (its tier kept)
    const token = ((await fresh.json()) as { data: { access_token: string } }).data.access_token;
    const me = (await (await second.request('/api/v1/users/me', { token })).json()) as { data: { id: string; role: string; tier: string } };
    expect(me.data).toMatchObject({ id: user.id, role: 'admin', tier: 'free' });
    expect((await second.request('/api/v1/admin/users', { token })).status).toBe(200);
  });
});
