/**
 * A Redis for the bench: the one at REDIS_URL (default redis://127.0.0.1:6379) when it
 * answers, else a private `redis-server` without persistence on a free loopback port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** The bench's Redis. */
export interface BenchRedis {
  url: string;
  /** Stops the private server, if one was started. */
  stop(): Promise<void>;
}

async function pings(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Find or start a Redis.
 * @throws Error explaining how to provide one when none answers and redis-server cannot start
 */
export async function ensureBenchRedis(env: NodeJS.ProcessEnv = process.env): Promise<BenchRedis> {
  const url = env.REDIS_URL ?? env.STOCKSCREEN_REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await pings(url)) return { url, stop: async () => undefined };
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const spawned = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  const privateUrl = `redis://127.0.0.1:${port}`;
  for (let i = 0; spawned && i < 100 && !(await pings(privateUrl)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!spawned || !(await pings(privateUrl))) {
    child.kill();
    throw new Error(`no Redis answers at ${url} and redis-server could not be started: run bin/ensure-redis.sh or set REDIS_URL`);
  }
  return {
    url: privateUrl,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Delete every key under `prefix` (the bench's own; nothing else is touched). Never throws. */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } catch {
    // Redis gone: nothing to clean
  } finally {
    client.disconnect();
  }
}
