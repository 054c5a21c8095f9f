/**
 * The KIS feed's parts on their own, against the fake KIS API and a real Redis: the shared
 * credential cache (one issuance for many daemons, never two within the interval), and the one
 * WebSocket session (the registration limit answered with OPSP0008 is not retried in a loop).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { createLogger } from '../../../daemon/infra/logger.js';
import { closeRedis, createRedisFactory, waitReady, type RedisFactory } from '../../../daemon/infra/redis.js';
import { createKisRest } from '../../../daemon/market/feeds/kis/rest-client.js';
import { createKisSocket } from '../../../daemon/market/feeds/kis/socket.js';
import { createKisCredentials } from '../../../daemon/market/feeds/kis/token-cache.js';
import { startKisFake, type KisFake } from '../../fakes/kis-fake.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';

const KEY = 'PSpartsKey';
const SECRET = 'parts-secret-0123456789';

describe('KIS parts against the fake', () => {
  let fake: KisFake;
  let redis: RedisFactory;
  let commands: Redis;
  const prefix = testPrefix('kis-parts');
  const logger = createLogger('silent');

  beforeAll(async () => {
    fake = await startKisFake({ appKey: KEY, appSecret: SECRET, maxRegistrations: 2, pingMs: 100, tokenIntervalMs: 60_000 });
    redis = createRedisFactory({ url: testRedisUrl(), prefix, logger });
    commands = redis.connect('command', 'test');
    await waitReady(commands, 5_000);
  });
  afterAll(async () => {
    await fake.close();
    await closeRedis(commands);
    await deleteKeys(testRedisUrl(), prefix);
  });

  it('many daemons asking at once share one token; an expired one is not replaced within the minute', async () => {
    const rest = createKisRest({ restUrl: fake.restUrl, appKey: KEY, appSecret: SECRET, now: Date.now });
    const daemons = [1, 2, 3].map(() => createKisCredentials({ redis: commands, key: redis.key, rest, now: Date.now }));
    const tokens = await Promise.allSettled(daemons.flatMap((d) => [d.token(), d.token()]));
    const values = new Set(tokens.flatMap((t) => (t.status === 'fulfilled' ? [t.value] : [])));
    expect(fake.stats.tokenIssues).toBe(1);
    expect(values.size).toBe(1);
    // Once stored, every daemon reads it.
    expect(await daemons[2]!.token()).toBe([...values][0]);
    await daemons[0]!.dropToken([...values][0]!);
    await expect(daemons[1]!.token()).rejects.toThrow(/less than a minute ago/);
    expect(fake.stats.tokenIssues).toBe(1);
    expect(fake.stats.tokenRefusals).toBe(0);
  });

  it('never puts the app secret in an error or a log line', async () => {
    const wrong = createKisRest({ restUrl: fake.restUrl, appKey: KEY, appSecret: `${SECRET}-wrong`, now: Date.now });
    const err = await wrong.issueToken().catch((e: Error) => e);
    expect(String((err as Error).message)).toMatch(/EGW00103/);
    expect(String((err as Error).message)).not.toContain(SECRET);
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    log.info({ config: { kis_app_key: KEY, kis_app_secret: SECRET }, body: { appkey: KEY, appsecret: SECRET, secretkey: SECRET } }, 'settings');
    expect(lines.join('')).not.toContain(SECRET);
    expect(lines.join('')).not.toContain(KEY);
  });

  it('holds what the limit allows after OPSP0008 and does not ask again in a loop; answers PINGPONG', async () => {
    const rest = createKisRest({ restUrl: fake.restUrl, appKey: KEY, appSecret: SECRET, now: Date.now });
    const socket = createKisSocket({ url: fake.wsUrl, approvalKey: () => rest.approvalKey(), dropApprovalKey: async () => undefined, onData: () => undefined, onBadFrame: () => undefined, logger });
    socket.start();
    const want = ['005930', '000660', '035720', '051910'].map((code) => ({ trId: 'H0STCNT0', code }));
    socket.want(want);
    // The four requests go out together: the two beyond the limit are both refused.
    await vi.waitFor(() => expect(socket.stats()).toMatchObject({ registered: 2, refused_over_limit: 2 }), { timeout: 5_000, interval: 20 });
    const requests = fake.stats.registerRequests;
    expect(requests).toBe(4);
    for (let i = 0; i < 5; i++) socket.want(want);
    await vi.waitFor(() => expect(fake.stats.pongs).toBeGreaterThan(1), { timeout: 5_000, interval: 20 });
    expect(fake.stats.registerRequests).toBe(requests);
    expect(fake.registered()).toEqual(['005930', '000660']);
    await socket.stop();
    expect(fake.openSessions()).toBe(0);
  });
});
