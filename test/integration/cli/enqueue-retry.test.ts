/**
 * The upload retry race: `stockscreen load` sends POST /admin/jobs, the daemon enqueues the job,
 * and the answer is lost (here a proxy on loopback swallows it, as a timeout would). The CLI
 * sends the request again with the same Idempotency-Key and gets that same job back: one load,
 * not two. Through the CLI's own enqueue service and API client, against a real daemon.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../../cli/services/load/jobs.js';
import type { Session } from '../../../cli/services/session/session.js';
import { createApiClient } from '../../../cli/services/transport/api-client.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
type Json = any;

/** A proxy to `target` that forwards everything but never answers the first POST /admin/jobs (its daemon answer is kept). */
function swallowingProxy(target: URL) {
  const swallowed: { body: string; idempotencyKey: string | undefined }[] = [];
  const seenKeys: (string | undefined)[] = [];
  const server: Server = createServer((req, res) => {
    const isEnqueue = req.method === 'POST' && req.url === '/api/v1/admin/jobs';
    if (isEnqueue) seenKeys.push(req.headers['idempotency-key'] as string | undefined);
    const swallow = isEnqueue && swallowed.length === 0 && seenKeys.length === 1;
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      if (swallow) {
        let body = '';
        up.setEncoding('utf8');
        up.on('data', (c: string) => (body += c));
        // The daemon answered; the client never hears it (it gives up on its own timeout).
        up.on('end', () => swallowed.push({ body, idempotencyKey: req.headers['idempotency-key'] as string | undefined }));
        return;
      }
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  return { server, swallowed, seenKeys };
}

describe('the CLI retries a lost enqueue answer without enqueueing twice', () => {
  let t: TestDaemon;
  let proxy: ReturnType<typeof swallowingProxy>;
  let admin: string;

  beforeAll(async () => {
    t = await startTestDaemon('cli-enqueue-retry', { workers: 0, admin_email: ADMIN.email, admin_password: ADMIN.password });
    admin = ((await (await t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN })).json()) as Json).access_token;
    proxy = swallowingProxy(new URL(t.url));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
  }, 60_000);
  afterAll(async () => {
    proxy?.server.closeAllConnections();
    await new Promise((resolve) => proxy?.server.close(resolve));
    await t?.close();
  });

  it('gets the job the lost answer held, and the daemon holds one job', async () => {
    // Given a client whose first answer is lost: it times out after 1 s
    const port = (proxy.server.address() as AddressInfo).port;
    const api = createApiClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1000, tokens: { accessToken: async () => admin, renew: async () => undefined } });
    const busy: (string | null)[] = [];
    // When it enqueues with retries allowed
    const res = await enqueueJob({ api } as unknown as Session, { type: 'compute-indicators' }, 30_000, (m) => busy.push(m));
    // Then the daemon's first answer was swallowed, the retry carried the same key, and it answered the same job
    expect(proxy.swallowed).toHaveLength(1);
    const lost = JSON.parse(proxy.swallowed[0]!.body) as Json;
    expect(proxy.seenKeys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(proxy.seenKeys).size).toBe(1);
    expect(proxy.seenKeys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.status).toBe(202);
    expect(res.data.id).toBe(lost.data.id);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    const jobs = ((await (await t.request('/api/v1/admin/jobs?limit=50', { token: admin })).json()) as Json).data as Json[];
    expect(jobs.map((j) => j.id)).toEqual([lost.data.id]);
  });

  it('uses a new key for each logical request', async () => {
    const api = createApiClient({ baseUrl: t.url, tokens: { accessToken: async () => admin, renew: async () => undefined } });
    const a = await enqueueJob({ api } as unknown as Session, { type: 'compute-indicators' });
    const b = await enqueueJob({ api } as unknown as Session, { type: 'compute-indicators' });
    expect(a.data.id).not.toBe(b.data.id);
  });
});
