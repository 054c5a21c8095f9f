/**
 * The client address of a request that never reaches express (a WebSocket upgrade), read
 * the way express reads `req.ip`: with the app's `trust proxy` setting, so WebSocket caps
 * and HTTP rate limits key anonymous callers by the same address.
 */
import type { IncomingMessage } from 'node:http';
import type { Express, Request } from 'express';

/** `req.ip` as `app` would compute it for this raw request; the socket's peer as a fallback. */
export function clientAddressOf(app: Express, req: IncomingMessage): string {
  const view = Object.create(app.request) as Request;
  Object.defineProperties(view, {
    headers: { value: req.headers },
    socket: { value: req.socket },
    connection: { value: req.socket },
  });
  return view.ip ?? req.socket.remoteAddress ?? 'unknown';
}
