/**
 * A CLI call that gets no answer in time says whether it may have happened: a write may have
 * been carried out after the CLI stopped waiting (a registration: the account may exist), a read
 * changed nothing. The daemon here is a local server that never answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccount } from '../../../../../cli/services/account/account.js';
import { CliError } from '../../../../../cli/services/session/errors.js';
import type { Session } from '../../../../../cli/services/session/session.js';
import { createApiClient } from '../../../../../cli/services/transport/api-client.js';

describe('a request that times out', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Reads the request, never answers (a daemon whose database is held).
    server = createServer((req) => req.resume());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const failure = async (p: Promise<unknown>) => {
    const err = await p.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    return err as CliError;
  };

  it('registering: says the account may have been created and to try logging in', async () => {
    const session = { api: createApiClient({ baseUrl: url, timeoutMs: 200 }) } as unknown as Session;
    const err = await failure(registerAccount(session, { email: 'new@example.com', password: 'correct horse battery' }));
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toContain('the request timed out');
    expect(err.message).toContain('the account may have been created — try `stockscreen login`');
  });

  it('another write: says it may still have been carried out', async () => {
    const api = createApiClient({ baseUrl: url, timeoutMs: 200 });
    const err = await failure(api.request({ method: 'POST', path: '/api/v1/screen/presets', body: { name: 'x' }, auth: false }));
    expect(err.message).toContain('it may still have been carried out — check before repeating it');
  });

  it('a read: no such warning', async () => {
    const api = createApiClient({ baseUrl: url, timeoutMs: 200 });
    const err = await failure(api.request({ path: '/api/v1/stocks', auth: false }));
    expect(err.message).toBe(`no answer from stockscreend at ${url} within 0.2 s`);
  });
});
