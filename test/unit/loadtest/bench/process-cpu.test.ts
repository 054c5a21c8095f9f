/**
 * Server-side CPU per request: read from /proc around the measured ticks of a run. The
 * watched process here is this test's own, made busy between ticks by a known amount of work.
 */
import { describe, expect, it } from 'vitest';
import { cpuPerRequestWatch, localRedisPid, processCpuMs } from '../../../../loadtest/bench/process-cpu.js';
import type { ProgressEvent } from '../../../../loadtest/types.js';
import { testRedisUrl } from '../../../helpers/test-daemon.js';

const onLinux = process.platform === 'linux';

/** Spin for `ms` of CPU time of this process. */
function burn(ms: number): void {
  const start = process.cpuUsage();
  while (true) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
}

const tick = (requests: number): ProgressEvent => ({ type: 'tick', scenario: 'auth-get', elapsed_s: 1, planned_s: 10, requests_per_s: requests });

describe.runIf(onLinux)('server CPU per request', () => {
  it('reads a process CPU time that grows with the work it does', () => {
    const before = processCpuMs(process.pid)!;
    burn(120);
    const after = processCpuMs(process.pid)!;
    // /proc counts in 10 ms ticks: 120 ms of work reads as 110-130 ms or more (other threads).
    expect(after - before).toBeGreaterThanOrEqual(100);
    expect(processCpuMs(2 ** 30)).toBeNull(); // no such process
  });

  it('counts only the measure phase: CPU between its first and last tick over the requests of the ticks after the first', () => {
    const seen: ProgressEvent[] = [];
    const watch = cpuPerRequestWatch({ daemon: process.pid, redis: null }, (e) => seen.push(e));
    watch.listener({ type: 'phase', scenario: 'auth-get', phase: 'warmup' });
    burn(100);
    watch.listener(tick(999)); // warm-up: neither CPU nor requests count
    watch.listener({ type: 'phase', scenario: 'auth-get', phase: 'measure' });
    watch.listener(tick(500)); // the window opens here; its requests were served before
    burn(200);
    watch.listener(tick(1000));
    watch.listener(tick(1000));
    const { daemonUs, redisUs } = watch.result();
    // ~200 ms of CPU over 2,000 requests: ~100 µs each (10 ms /proc ticks, and the test runner's own threads)
    expect(daemonUs).toBeGreaterThan(85);
    expect(daemonUs).toBeLessThan(160);
    expect(redisUs).toBeNull();
    expect(seen).toHaveLength(6); // the wrapped listener saw every event
  });

  it('has no figure when the run never reached a second measured tick', () => {
    const watch = cpuPerRequestWatch({ daemon: process.pid, redis: null });
    watch.listener({ type: 'phase', scenario: 'auth-get', phase: 'measure' });
    watch.listener(tick(500));
    expect(watch.result()).toEqual({ daemonUs: null, redisUs: null });
  });

  it("finds the pid of the suite's Redis on this machine, and none for a Redis on another host", async () => {
    const pid = await localRedisPid(testRedisUrl());
    expect(pid).toBeGreaterThan(0);
    expect(processCpuMs(pid!)).not.toBeNull();
    // Not loopback: decided from the URL, nothing is contacted.
    expect(await localRedisPid('redis://192.0.2.1:6379')).toBeNull();
  });
});
