import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../daemon/infra/logger.js';
import { closeRedis, createRedisFactory, dropRedis, isRedisUnavailable, waitReady } from '../../../../daemon/infra/redis.js';

describe('API-side Redis connections', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** A server that accepts connections and never answers (a hung Redis). */
  async function hungServer(): Promise<number> {
    const sockets = new Set<Socket>();
    const srv = createServer((s) => void sockets.add(s.on('error', () => undefined)));
    srv.listen(0, '127.0.0.1');
    await once(srv, 'listening');
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      srv.close();
    });
    return (srv.address() as AddressInfo).port;
  }

  it('fail a command on a hung Redis after the command timeout, with an error the edges map to 503', async () => {
    // Given a command connection to a Redis that accepts but never answers
    const port = await hungServer();
    const factory = createRedisFactory({ url: `redis://127.0.0.1:${port}`, prefix: 't:', logger: createLogger('silent'), commandTimeoutMs: 50 });
    const client = factory.connect('command', 'test');
    cleanups.push(() => closeRedis(client));
    expect(await waitReady(client, 2000)).toBe(true);
    // When a command is sent
    const err = await client.get('t:k').then(
      () => null,
      (e: unknown) => e,
    );
    // Then it is rejected (not left pending), as "Redis unavailable"
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('Command timed out');
    expect(isRedisUnavailable(err)).toBe(true);
  });

  it('let a connection of long reads (replay history) wait longer than the fail-fast default', async () => {
    // Given a hung Redis, a default command connection (50 ms) and one overriding it (400 ms)
    const port = await hungServer();
    const factory = createRedisFactory({ url: `redis://127.0.0.1:${port}`, prefix: 't:', logger: createLogger('silent'), commandTimeoutMs: 50 });
    const fast = factory.connect('command', 'fast');
    const patient = factory.connect('command', 'history', { commandTimeoutMs: 400 });
    cleanups.push(() => closeRedis(fast), () => closeRedis(patient));
    expect(await waitReady(fast, 2000)).toBe(true);
    expect(await waitReady(patient, 2000)).toBe(true);
    // When both send a command at once
    const settled: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => settled.push(`${name} ok`), (e: Error) => settled.push(`${name} ${e.message}`));
    await Promise.all([track('patient', patient.get('t:k')), track('fast', fast.get('t:k'))]);
    // Then the fast one gives up first, the patient one later, both with the timeout error
    expect(settled).toEqual(['fast Command timed out', 'patient Command timed out']);
  });

  it('drop a connection whose Redis went away: it stops reconnecting and what waited for it fails', async () => {
    // Given a BullMQ-role connection (commands wait for Redis) to a port where Redis is gone, between two reconnect attempts
    const srv = createServer();
    srv.listen(0, '127.0.0.1');
    await once(srv, 'listening');
    const port = (srv.address() as AddressInfo).port;
    await new Promise((r) => srv.close(r));
    const factory = createRedisFactory({ url: `redis://127.0.0.1:${port}`, prefix: 't:', logger: createLogger('silent') });
    const client = factory.connect('bullmq', 'test');
    cleanups.push(() => client.disconnect());
    await new Promise((r) => client.once('reconnecting', r));
    const waiting = client.get('t:k').then(() => 'answered', (e: Error) => e.message);
    // When it is dropped
    dropRedis(client);
    // Then the waiting command fails instead of hanging, and the client has ended (no more attempts)
    expect(await waiting).toBe('Connection is closed.');
    expect(client.status).toBe('end');
  });

  it('recognise the fail-fast errors of a down Redis, and nothing else', () => {
    for (const message of [
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Connection is closed.',
      'Command timed out',
      'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
      'LOADING Redis is loading the dataset in memory',
    ]) {
      expect(isRedisUnavailable(new Error(message)), message).toBe(true);
    }
    for (const value of [new Error('ERR wrong number of arguments'), new Error('WRONGTYPE Operation against a key'), 'Connection is closed.', null]) {
      expect(isRedisUnavailable(value), String(value)).toBe(false);
    }
  });
});
