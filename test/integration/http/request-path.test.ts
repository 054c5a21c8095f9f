/**
 * The request path: cheapest refusal first, limits that hold while the daemon is
 * busy, and small answers to big bad bodies.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

/**
 * Send a request's headers and only `sent` bytes of its announced body, and resolve with the
 * status line the daemon answers while the rest of the body is still missing: proof that it
 * answered without reading (let alone parsing) the body.
 */
function answerBeforeBody(url: string, path: string, headers: Record<string, string>, announced: number, sent: number): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    const lines = [`POST ${path} HTTP/1.1`, `Host: ${hostname}`, 'Content-Type: application/json', `Content-Length: ${announced}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    socket.write('{"' + 'a'.repeat(Math.max(0, sent - 2)));
  });
}

/** Block this process's event loop (the daemon's too: it runs in-process) for `ms`, then yield once. */
async function busy(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin: the daemon cannot read its sockets meanwhile, so its timers fire late
  }
  await new Promise((r) => setImmediate(r));
}

describe('bad bodies from anyone', () => {
  let t: TestDaemon;
  let token: string;
  beforeAll(async () => {
    t = await startTestDaemon('request-path', { rate_limit: { enabled: true } });
    token = (await t.login()).access_token;
  });
  afterAll(() => t.close());

  it('answers an anonymous 1 MB screening body with 413 from its headers, before the body is sent', async () => {
    expect(await answerBeforeBody(t.url, '/api/v1/screen', {}, 1_000_000, 10)).toBe(413);
  });

  it('answers an anonymous screening body within the limit with 401 before reading it', async () => {
    expect(await answerBeforeBody(t.url, '/api/v1/screen', {}, 60_000, 10)).toBe(401);
  });

  it('answers a token holder\'s 1 MB body with 413 too, naming the limit', async () => {
    const res = await t.request('/api/v1/screen', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ x: 'y'.repeat(1_000_000) }) });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: { code: string; details: { limit_bytes: number } } };
    expect(body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.error.details.limit_bytes).toBe(64 * 1024);
  });

  it('keeps the 400 for a many-keyed body small: 50 problems listed, the rest counted', async () => {
    const keys = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`bogus_${i}`, i]));
    const res = await t.request('/api/v1/screen', { method: 'POST', token, json: keys });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(16 * 1024);
    const { error } = JSON.parse(text) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(error.code).toBe('INVALID_REQUEST');
    const listed = Object.keys(error.details).filter((k) => k.startsWith('bogus_'));
    expect(listed).toHaveLength(50);
    expect(error.details._more).toBe(2950);
    expect(error.message).toMatch(/and 2999 more problems/);
  });

  it('says "must be a JSON object" for null or a number, and 415 for a body that is not JSON', async () => {
    for (const raw of ['null', '42']) {
      const res = await t.request('/api/v1/screen', { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: raw });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/must be a JSON object/);
    }
    const form = await t.request('/api/v1/screen', { method: 'POST', token, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(form.status).toBe(415);
    expect(((await form.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('limits while the daemon is too busy to read its sockets on time', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    // A 20 ms deadline: every busy spell below outlasts it many times over.
    t = await startTestDaemon('request-path-busy', { rate_limit: { enabled: true, timeout_ms: 20 } });
  });
  afterAll(() => t.close());

  it('lets exactly 10 of 40 parallel wrong-password logins reach the password check', async () => {
    const { email } = await t.login();
    const attempts = Array.from({ length: 40 }, () => t.request('/api/v1/auth/login', { method: 'POST', json: { email, password: 'not-the-password-1' } }));
    const all = Promise.all(attempts.map(async (p) => (await p).status));
    for (let i = 0; i < 10; i++) await busy(60);
    const statuses = await all;
    // The earlier login of t.login() used one of the address's 10 slots.
    expect(statuses.filter((s) => s === 401)).toHaveLength(9);
    expect(statuses.filter((s) => s === 429)).toHaveLength(31);
  });
});

describe('revocation while the daemon is too busy to read its sockets on time', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('request-path-revoked', { rate_limit: { enabled: true, timeout_ms: 20 } });
  });
  afterAll(() => t.close());

  it('refuses a logged-out token every time, however late the daemon reads Redis', async () => {
    const session = await t.login();
    const out = await t.request('/api/v1/auth/logout', { method: 'POST', json: { refresh_token: session.refresh_token }, token: session.access_token });
    expect(out.status).toBe(204);
    const tries = Array.from({ length: 30 }, () => t.request('/api/v1/users/me', { token: session.access_token }).then((r) => r.status));
    const all = Promise.all(tries);
    for (let i = 0; i < 10; i++) await busy(60);
    expect(new Set(await all)).toEqual(new Set([401]));
    const failedOpen = (await t.daemon.context().core.metrics.rateLimitDecisions.get()).values.find((v) => v.labels.decision === 'failed_open')?.value ?? 0;
    expect(failedOpen).toBe(0);
  });
});
