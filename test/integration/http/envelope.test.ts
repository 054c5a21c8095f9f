import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('REST envelope, request ids, prefixes and error mapping', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('envelope', { body_limit: '2kb' });
  });
  afterAll(() => t.close());

  it('serves the same router under /api/v1 and /v1', async () => {
    // Given a registered user, when /users/me is called under both prefixes
    const { access_token, email } = await t.login();
    for (const prefix of ['/api/v1', '/v1']) {
      const res = await t.request(`${prefix}/users/me`, { token: access_token });
      // Then both answer the same account
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.data.email).toBe(email);
    }
  });

  it('wraps success in {status, data, meta:{timestamp, request_id}} and sets X-Request-Id', async () => {
    const { access_token } = await t.login();
    const res = await t.request('/api/v1/users/me', { token: access_token });
    const body = (await res.json()) as any;
    expect(body.status).toBe('success');
    expect(body.meta.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(body.meta.timestamp).toISOString()).toBe(body.meta.timestamp);
    expect(res.headers.get('x-request-id')).toBe(body.meta.request_id);
  });

  it('echoes a valid incoming X-Request-Id and replaces an invalid one', async () => {
    const good = await t.request('/health', { headers: { 'x-request-id': 'trace-abc-12345' } });
    expect(good.headers.get('x-request-id')).toBe('trace-abc-12345');
    const bad = await t.request('/health', { headers: { 'x-request-id': 'no spaces <allowed>' } });
    expect(bad.headers.get('x-request-id')).not.toBe('no spaces <allowed>');
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 NOT_FOUND in the error envelope', async () => {
    for (const path of ['/api/v1/nope', '/v1/nope', '/nope']) {
      const res = await t.request(path);
      expect(res.status).toBe(404);
      const body = (await res.json()) as any;
      expect(body.status).toBe('error');
      expect(body.error.code).toBe('NOT_FOUND');
      expect(body.meta.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it('rejects malformed JSON with 400 INVALID_REQUEST, not a 500', async () => {
    const res = await t.request('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email": "a@b.c", ',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.message).toMatch(/Malformed JSON/);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.js:\d+/); // no stack trace
  });

  it('rejects a body over the configured limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.request('/api/v1/auth/register', {
      method: 'POST',
      json: { email: 'big@example.com', password: 'x'.repeat(4096) },
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('lists every bad field in details on a schema violation', async () => {
    const res = await t.request('/api/v1/auth/register', { method: 'POST', json: { email: 'not-an-email', password: 'short', extra: 1 } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(Object.keys(body.error.details).sort()).toEqual(['email', 'extra', 'password']);
  });

  it('answers OPTIONS with 204 and Allow (not the automatic text/plain answer), under both prefixes and at the root', async () => {
    for (const [path, allow] of [
      ['/api/v1/users/me', 'GET, HEAD, OPTIONS'],
      ['/v1/users/me', 'GET, HEAD, OPTIONS'],
      ['/api/v1/auth/login', 'OPTIONS, POST'],
      // Several routes for one path are united
      ['/api/v1/alerts/3f2a', 'DELETE, GET, HEAD, OPTIONS, PUT'],
      ['/health', 'GET, HEAD, OPTIONS'],
    ] as const) {
      // When a client asks which methods a path allows (no token needed)
      const res = await t.request(path, { method: 'OPTIONS' });
      // Then it gets 204 with Allow and no body
      expect(res.status, path).toBe(204);
      expect(res.headers.get('allow'), path).toBe(allow);
      expect(res.headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
      expect(await res.text(), path).toBe('');
    }
    // And a path nothing serves is the usual JSON 404
    const missing = await t.request('/api/v1/nope', { method: 'OPTIONS' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('NOT_FOUND');
  });

  it('answers a non-object JSON body with 400, not a 500', async () => {
    for (const raw of ['[]', '"text"', 'null', '42']) {
      const res = await t.request('/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.code).toBe('INVALID_REQUEST');
    }
  });
});
