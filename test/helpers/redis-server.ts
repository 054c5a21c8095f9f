/** Starts a private, throw-away redis-server on a free port (for tests that stop Redis). */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { Redis } from 'ioredis';

/** A private Redis the test may stop. */
export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Start redis-server and resolve once it answers PING. @throws when it never answers */
export async function startPrivateRedis(bin: string): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { retryStrategy: (n) => (n > 100 ? null : 50), maxRetriesPerRequest: null });
  probe.on('error', () => undefined);
  // Resolves on the first successful PING (the client retries the connection until then).
  await probe.ping();
  probe.disconnect();
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}
