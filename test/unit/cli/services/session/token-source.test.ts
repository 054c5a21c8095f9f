import { describe, expect, it } from 'vitest';
import type { Credentials, CredentialsStore } from '../../../../../cli/services/session/credentials.js';
import { CliError } from '../../../../../cli/services/session/errors.js';
import { createTokenSource } from '../../../../../cli/services/session/token-source.js';
import type { TokenPair } from '../../../../../daemon/contract/users.js';

function memoryStore(initial: Credentials): CredentialsStore & { saved: Credentials[] } {
  let current: Credentials | undefined = initial;
  const saved: Credentials[] = [];
  return {
    file: '(memory)',
    saved,
    get: async () => current,
    save: async (_p, c) => void (saved.push(c), (current = c)),
    remove: async () => ((current = undefined), true),
    profiles: async () => (current ? ['default'] : []),
  };
}
const creds: Credentials = { url: 'http://h:1', email: 'me@example.com', access_token: 'A1', refresh_token: 'R1', expires_at: 'x', saved_at: 'x' };
const pair: TokenPair = { access_token: 'A2', refresh_token: 'R2', token_type: 'bearer', expires_in: 3600, refresh_expires_in: 86_400 };

describe('token source', () => {
  it('refreshes with the saved refresh token, saves the new pair and returns the new access token', async () => {
    const store = memoryStore(creds);
    const used: string[] = [];
    const source = createTokenSource({ store, profile: 'default', refresh: async (rt) => (used.push(rt), pair) });
    expect(await source.renew('A1')).toBe('A2');
    expect(used).toEqual(['R1']);
    expect(store.saved[0]).toMatchObject({ access_token: 'A2', refresh_token: 'R2', email: 'me@example.com', url: 'http://h:1' });
  });

  it('renews at most once per invocation', async () => {
    let calls = 0;
    const source = createTokenSource({ store: memoryStore(creds), profile: 'default', refresh: async () => (calls++, pair) });
    await source.renew('A1');
    expect(await source.renew('A2')).toBeUndefined();
    expect(calls).toBe(1);
  });

  it('uses a pair another invocation saved meanwhile instead of replaying a used refresh token', async () => {
    let calls = 0;
    const source = createTokenSource({ store: memoryStore({ ...creds, access_token: 'A9' }), profile: 'default', refresh: async () => (calls++, pair) });
    expect(await source.renew('A1')).toBe('A9');
    expect(calls).toBe(0);
  });

  it('gives up (undefined) when the server refuses the refresh token, but lets other failures through', async () => {
    const refused = createTokenSource({ store: memoryStore(creds), profile: 'default', refresh: async () => { throw new CliError({ code: 'UNAUTHORIZED', message: 'reused' }); } });
    expect(await refused.renew('A1')).toBeUndefined();
    const down = createTokenSource({ store: memoryStore(creds), profile: 'default', refresh: async () => { throw new CliError({ code: 'ECONNREFUSED', message: 'down' }); } });
    await expect(down.renew('A1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
