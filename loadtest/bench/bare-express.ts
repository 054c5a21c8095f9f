/**
 * The request-path bench's baseline: a bare express 5 app doing the same I/O as the
 * daemon's routes under test, with nothing else — it parses the same JSON body with
 * `express.json()` and answers the same object with `res.json`. Started in a child process
 * (child-entry.ts) so it never shares an event loop with the load generator.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

/** What the bare app answers: the daemon's own answers, fetched once by the bench. */
export interface BareExpressOptions {
  /** The answer of POST /api/v1/screen (whatever the body). */
  screen: unknown;
  /** The answer of GET /api/v1/users/me. */
  me: unknown;
}

/** Start the bare app on a loopback port. */
export async function startBareExpress(o: BareExpressOptions): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.post('/api/v1/screen', express.json({ limit: '1mb' }), (_req, res) => void res.json(o.screen));
  app.get('/api/v1/users/me', (_req, res) => void res.json(o.me));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
