/**
 * Fail open: with Redis refusing connections, or accepting and
 * never answering, requests pass, are counted in metrics, and one warning is logged.
 */
import { once } from 'node:events';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandClient, openAccounts, sequential, startApp, type Accounts, type TestApp } from './harness.js';

describe('rate limiter when Redis is unavailable (fail open)', () => {
  let accounts: Accounts;
  beforeAll(async () => {
    accounts = await openAccounts();
  });
  afterAll(() => accounts?.close());

  const failedOpen = async (app: TestApp) =>
    (await app.metrics.rateLimitDecisions.get()).values.find((v) => v.labels.decision === 'failed_open')?.value ?? 0;

  it('allows requests when Redis refuses connections, counts them, and logs one warning', async () => {
    const port = await closedPort();
    const redis = commandClient(`redis://127.0.0.1:${port}`, { retryStrategy: () => null });
    const lines: string[] = [];
    const app = await startApp({ redis, prefix: 'unused:', accounts, logLines: lines });
    try {
      const u = await accounts.user('free');
      const statuses = await sequential(3, () => app.request('/api/v1/screen', { method: 'POST', token: u.token }));
      expect(statuses).toEqual([200, 200, 200]);
      const res = await app.request('/api/v1/stocks');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
      expect(await failedOpen(app)).toBe(4);
      expect(lines.filter((l) => l.includes('fail open'))).toHaveLength(1);
    } finally {
      await app.close();
      redis.disconnect();
    }
  });

  it('allows requests when Redis accepts but never answers, after timeout_ms', async () => {
    const silent = await silentServer();
    const redis = commandClient(`redis://127.0.0.1:${silent.port}`, { enableReadyCheck: false, disableClientInfo: true, maxRetriesPerRequest: null });
    await once(redis, 'ready');
    const app = await startApp({ redis, prefix: 'unused:', accounts, rateLimit: { timeout_ms: 50 } });
    try {
      const res = await app.request('/api/v1/stocks');
      expect(res.status).toBe(200);
      expect(await failedOpen(app)).toBe(1);
    } finally {
      await app.close();
      redis.disconnect();
      silent.close();
    }
  });
});

async function closedPort(): Promise<number> {
  const srv = createTcpServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A TCP server that accepts connections and never replies (a hung Redis). */
async function silentServer(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const srv: TcpServer = createTcpServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  return {
    port: (srv.address() as AddressInfo).port,
    close() {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}
