/**
 * A TCP proxy on loopback whose link can be cut and restored: a real way to make a
 * server (PostgreSQL, say) unreachable for one daemon without touching the server.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  port: number;
  /** Refuse new connections and drop the open ones. */
  cut(): Promise<void>;
  /** Accept connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Proxy 127.0.0.1:<port> → target. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const serve = (): Server =>
    createServer((client) => {
      const upstream = createConnection(target);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s)).on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject).listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  const stop = (server: Server) =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  let server = serve();
  const port = await listen(server, 0);
  let up = true;
  return {
    port,
    async cut() {
      if (!up) return;
      up = false;
      await stop(server);
    },
    async restore() {
      if (up) return;
      server = serve();
      await listen(server, port);
      up = true;
    },
    async close() {
      if (up) await stop(server);
      up = false;
    },
  };
}
