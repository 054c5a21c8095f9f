import { describe, expect, it } from 'vitest';
import { createWsCounters } from '../../../../daemon/ws/stats.js';

describe('gateway counters', () => {
  it('averages delivered messages over the last 10 seconds', () => {
    let now = 0;
    const c = createWsCounters(() => now);
    // 100 messages in each of the first 12 seconds
    for (let s = 0; s < 12; s++) {
      now = s * 1000 + 500;
      c.recordSent(100, 1, 1);
    }
    now = 11_999;
    // Window = seconds 2..11 (10 buckets × 100 = 1000 messages) over 9.999 s → 100.0
    expect(c.messagesPerSecond()).toBe(100);
    expect(c.messagesSent()).toBe(1200);
    expect(c.framesSent()).toBe(12);
    now = 30_000; // nothing for 18 s
    expect(c.messagesPerSecond()).toBe(0);
  });

  it('uses the uptime while shorter than the window', () => {
    let now = 0;
    const c = createWsCounters(() => now);
    c.recordSent(50, 1, 1);
    now = 2000;
    // 50 messages in 2 s
    expect(c.messagesPerSecond()).toBe(25);
  });

  it('reports nearest-rank latency percentiles', () => {
    const c = createWsCounters(() => 0);
    expect(c.latency()).toEqual({ p50: null, p95: null, p99: null, max: null, samples: 0 });
    // 1..100 ms in shuffled order: p50 = 50th value, p95 = 95th, p99 = 99th
    const values = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    for (const v of values) c.recordSent(1, 1, v);
    expect(c.latency()).toEqual({ p50: 50, p95: 95, p99: 99, max: 100, samples: 100 });
  });
});
