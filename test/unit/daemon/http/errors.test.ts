import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import '../../../../daemon/http/types.js';
import { errorHandler } from '../../../../daemon/http/middleware/errors.js';
import { requestId } from '../../../../daemon/http/middleware/request-id.js';
import { createLogger } from '../../../../daemon/infra/logger.js';
import { Writable } from 'node:stream';

describe('error middleware', () => {
  it('masks an unexpected error as 500 INTERNAL_ERROR and logs the cause with the request id', async () => {
    // Given a route that fails with an internal error carrying a secret-looking message
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const app = express();
    app.use(requestId());
    app.get('/boom', () => {
      throw new Error('db password is hunter2 at /srv/app/secret.js:12');
    });
    app.use(errorHandler(createLogger('error', sink)));
    const server = createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      // When it is called
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
      const body = (await res.json()) as any;
      // Then the client sees a masked 500 in the envelope, and the log has the real cause
      expect(res.status).toBe(500);
      expect(body).toMatchObject({ status: 'error', error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
      expect(JSON.stringify(body)).not.toMatch(/hunter2|secret\.js/);
      const logged = lines.join('');
      expect(logged).toMatch(/hunter2/);
      expect(logged).toContain(body.meta.request_id);
    } finally {
      server.close();
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when Redis cannot be reached, not a masked 500', async () => {
    // Given routes failing the way ioredis fails while Redis is down or hung
    const app = express();
    app.use(requestId());
    const messages = ["Stream isn't writeable and enableOfflineQueue options is false", 'Connection is closed.', 'Command timed out'];
    messages.forEach((message, i) =>
      app.post(`/r${i}`, () => {
        throw new Error(message);
      }),
    );
    app.use(errorHandler(createLogger('silent')));
    const server = createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      for (let i = 0; i < messages.length; i++) {
        // When each is called
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/r${i}`, { method: 'POST' });
        // Then the client is told to retry later
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        const body = (await res.json()) as any;
        expect(body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'Redis unavailable; try again shortly' });
      }
    } finally {
      server.close();
    }
  });
});
