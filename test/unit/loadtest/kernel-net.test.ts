import { describe, expect, it } from 'vitest';
import { metricSeconds } from '../../../loadtest/daemon-loop.js';
import { parseListenCounters } from '../../../loadtest/kernel-net.js';
import { sourceAddress } from '../../../loadtest/scenarios/ws-reconnect-storm.js';

// The layout of /proc/net/netstat: per prefix, a line of names and a line of values (trimmed copy).
const NETSTAT = [
  'TcpExt: SyncookiesSent SyncookiesRecv DelayedACKs ListenOverflows ListenDrops TCPHPHits',
  'TcpExt: 0 0 812 47024 47031 99',
  'IpExt: InNoRoutes InTruncatedPkts',
  'IpExt: 0 0',
  '',
].join('\n');

describe('kernel accept-queue counters', () => {
  it('reads ListenOverflows and ListenDrops by name from the TcpExt lines', () => {
    expect(parseListenCounters(NETSTAT)).toEqual({ overflows: 47024, drops: 47031 });
  });

  it('is null when the counters are absent', () => {
    expect(parseListenCounters('IpExt: InNoRoutes\nIpExt: 0\n')).toBeNull();
    expect(parseListenCounters('TcpExt: SyncookiesSent\nTcpExt: 0\n')).toBeNull();
  });
});

describe('storm source addresses', () => {
  it('spreads clients of a 127.x daemon over several loopback addresses, and leaves others to the system', () => {
    const used = new Set(Array.from({ length: 100 }, (_, i) => sourceAddress('http://127.0.0.1:8080', i)));
    expect(used.size).toBeGreaterThan(1);
    for (const a of used) expect(a).toMatch(/^127\.0\.0\.\d+$/);
    expect(sourceAddress('http://localhost:8080', 3)).toBeUndefined();
    expect(sourceAddress('http://[::1]:8080', 3)).toBeUndefined();
  });
});

describe('daemon event-loop delay from its metrics', () => {
  it('reads a metric’s value in seconds by its exact name, null when absent', () => {
    const text = ['# HELP x', 'stockscreen_nodejs_eventloop_lag_p99_seconds 0.812', 'stockscreen_nodejs_eventloop_lag_p99_seconds_extra 9', 'stockscreen_nodejs_eventloop_lag_max_seconds 2.5'].join('\n');
    expect(metricSeconds(text, 'stockscreen_nodejs_eventloop_lag_p99_seconds')).toBe(0.812);
    expect(metricSeconds(text, 'stockscreen_nodejs_eventloop_lag_max_seconds')).toBe(2.5);
    expect(metricSeconds(text, 'stockscreen_nodejs_eventloop_lag_min_seconds')).toBeNull();
  });
});
