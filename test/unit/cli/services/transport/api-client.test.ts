import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type TokenSource } from '../../../../../cli/services/transport/api-client.js';
import { CliError } from '../../../../../cli/services/session/errors.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A local HTTP server on port 0 that records requests. */
async function serve(handler: Handler): Promise<{ url: string; server: Server; seen: { auth?: string; body: string; url?: string }[] }> {
  const seen: { auth?: string; body: string; url?: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, body, url: req.url });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'hdr-id' });
  res.end(JSON.stringify(body));
};
const unauthorized = (reason: string) => ({ status: 'error', error: { code: 'UNAUTHORIZED', message: `token ${reason}`, details: { reason } }, meta: { request_id: 'r401' } });
const ok = (data: unknown) => ({ status: 'success', data, meta: { timestamp: 't', request_id: 'r200' } });

/** A token source with a fixed token that counts renewals. */
function tokens(initial: string | undefined, renewed: string | undefined): TokenSource & { renewals: string[] } {
  const renewals: string[] = [];
  return { renewals, accessToken: async () => initial, renew: async (rejected) => (renewals.push(rejected), renewed) };
}

describe('api client', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  });

  it('sends JSON with the bearer token and unwraps the envelope, keeping the raw body', async () => {
    const s = await serve((_req, _body, res) => json(res, 201, ok({ id: 1 })));
    server = s.server;
    const client = createApiClient({ baseUrl: s.url + '/', tokens: tokens('tok', undefined) });
    const res = await client.request<{ id: number }>({ method: 'POST', path: '/api/v1/things', body: { a: 1 }, query: { page: 2, skip: undefined } });
    expect(res).toEqual({ status: 201, data: { id: 1 }, body: ok({ id: 1 }), requestId: 'r200' });
    expect(s.seen).toEqual([{ auth: 'Bearer tok', body: '{"a":1}', url: '/api/v1/things?page=2' }]);
  });

  it('renews once on a 401 for an expired token and retries with the new token', async () => {
    const s = await serve((req, _body, res) => (req.headers.authorization === 'Bearer new' ? json(res, 200, ok('me')) : json(res, 401, unauthorized('expired'))));
    server = s.server;
    const source = tokens('old', 'new');
    const res = await createApiClient({ baseUrl: s.url, tokens: source }).request({ path: '/api/v1/users/me' });
    expect(res.data).toBe('me');
    expect(source.renewals).toEqual(['old']);
    expect(s.seen.map((r) => r.auth)).toEqual(['Bearer old', 'Bearer new']);
  });

  it('does not renew a revoked token and surfaces the 401 (exit 4)', async () => {
    const s = await serve((_req, _body, res) => json(res, 401, unauthorized('revoked')));
    server = s.server;
    const source = tokens('old', 'new');
    const err = await createApiClient({ baseUrl: s.url, tokens: source }).request({ path: '/x' }).catch((e: unknown) => e);
    expect(source.renewals).toEqual([]);
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', message: 'token revoked', requestId: 'r401', exitCode: 4 });
  });

  it('surfaces the original 401 when renewal is impossible', async () => {
    const s = await serve((_req, _body, res) => json(res, 401, unauthorized('invalid')));
    server = s.server;
    const err = await createApiClient({ baseUrl: s.url, tokens: tokens('old', undefined) }).request({ path: '/x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', exitCode: 4 });
    expect(s.seen).toHaveLength(1);
  });

  it('evaluates a function body on each attempt', async () => {
    const s = await serve((req, _body, res) => (req.headers.authorization === 'Bearer new' ? json(res, 204, undefined) : json(res, 401, unauthorized('expired'))));
    server = s.server;
    let n = 0;
    await createApiClient({ baseUrl: s.url, tokens: tokens('old', 'new') }).request({ method: 'POST', path: '/x', body: () => ({ n: ++n }) });
    expect(s.seen.map((r) => r.body)).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('fails before any request when a token is needed and none is saved (exit 4)', async () => {
    const s = await serve((_req, _body, res) => json(res, 200, ok(null)));
    server = s.server;
    const err = await createApiClient({ baseUrl: s.url, tokens: tokens(undefined, undefined) }).request({ path: '/x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(4);
    expect(s.seen).toHaveLength(0);
  });

  it('returns error responses as results with allowError (health probes)', async () => {
    const s = await serve((_req, _body, res) => json(res, 503, { status: 'unhealthy', redis: 'disconnected' }));
    server = s.server;
    const res = await createApiClient({ baseUrl: s.url }).request({ path: '/health/redis', auth: false, allowError: true });
    expect(res).toMatchObject({ status: 503, data: { redis: 'disconnected' }, requestId: 'hdr-id' });
  });

  it('rejects a non-JSON answer with a hint about --url', async () => {
    const s = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    server = s.server;
    const err = await createApiClient({ baseUrl: s.url }).request({ path: '/health', auth: false }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_RESPONSE', exitCode: 1 });
    expect((err as CliError).hint).toContain('--url');
  });

  it('maps a refused connection to the unreachable error', async () => {
    const s = await serve(() => undefined);
    const url = s.url;
    await new Promise((r) => s.server.close(r));
    const err = await createApiClient({ baseUrl: url }).request({ path: '/health', auth: false }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ECONNREFUSED', message: `cannot reach stockscreend at ${url}`, exitCode: 1 });
  });
});
