/**
 * bench:scale's feed-takeover measurement against real daemon processes (the built
 * launcher, like the cluster test): the leader is SIGKILLed and the survivor takes the feed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMarketBench } from '../../../loadtest/bench/market-load.js';
import { measureFeedTakeover, takeoverRows, type StartDaemon } from '../../../loadtest/bench/takeover.js';
import { startDaemonProcess, stopAllDaemonProcesses } from '../../helpers/daemon-processes.js';
import { deleteKeys, testPrefix, testRedisUrl } from '../../helpers/test-daemon.js';

describe('feed-leader takeover measurement', () => {
  const prefix = testPrefix('takeover');
  const redisUrl = testRedisUrl();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-takeover-'));
    // The simulator needs stocks: a tiny market straight into the shared data dir.
    await runMarketBench({ stocks: 10, days: 40, sampleDataDir: join(dir, 'data') });
  }, 60_000);
  afterAll(async () => {
    await stopAllDaemonProcesses();
    await deleteKeys(redisUrl, prefix);
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the leader, kills it, and times the lease move and the survivor\'s first tick', async () => {
    // Given daemon processes started by the measurement on one data dir and Redis prefix
    let n = 0;
    const started: number[] = [];
    const start: StartDaemon = async (config) => {
      const p = await startDaemonProcess(`d${n++}`, dir, config);
      started.push(p.pid);
      return { pid: p.pid, url: p.url, kill: () => p.kill(), close: async () => void (await p.stop()) };
    };
    const config = {
      host: '127.0.0.1', port: 0, data_dir: join(dir, 'data'), redis_url: redisUrl, redis_prefix: prefix, log_level: 'info',
      jwt_secret: 'x'.repeat(48), feed_interval_ms: 250, market_clock: 'always-open', rate_limit: { enabled: false },
    };
    // When the measurement runs
    const result = await measureFeedTakeover({ config, redisUrl, prefix, start });
    // Then two daemons ran, the lease moved and the survivor's clients got a new tick
    expect(started).toHaveLength(2);
    expect(result.lease_moved_s).not.toBeNull();
    expect(result.first_tick_s).not.toBeNull();
    expect(result.feed_interval_ms).toBe(250);
    const rows = takeoverRows('sqlite', result);
    expect(rows.map((r) => [r.scenario, r.metric, r.unit])).toEqual([
      ['sqlite feed takeover', 'lease moved to the survivor', 's'],
      ['sqlite feed takeover', 'first tick on the survivor', 's'],
    ]);
  }, 90_000);
});
