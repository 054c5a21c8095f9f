import { describe, expect, it } from 'vitest';
import { appendHistory, EMPTY_HISTORY, EMPTY_STATS_VIEW, pollStats, reduceStatsView, wsStatsRecord, wsStatsRow } from '../../../../../cli/services/realtime/ws-stats.js';
import type { WsStats } from '../../../../../daemon/contract/ws.js';

const stats = (over: Partial<WsStats> = {}): WsStats => ({
  active_connections: 3, total_subscriptions: 7, subscriptions_by_type: { stock: 5, market: 1, sector: 1 }, messages_sent: 1200,
  saved_sessions: 2, batching_enabled: true, batch_interval_ms: 30, queued_messages: 0, rate_limiting_enabled: true, rate_limit: 100,
  messages_per_second: 12.5, memory: { rss: 100 * 1024 * 1024, heap_used: 3 * 1024 * 1024 / 2, heap_total: 4 * 1024 * 1024, external: 0, array_buffers: 0 }, frames_sent: 1000, topics: 7, compression: null,
  send_latency_ms: { p50: 0.4, p95: 1, p99: 2.5, max: 3, samples: 10 }, bytes_per_connection: 2048, ...over,
});

describe('ws-stats rows', () => {
  it('shows the spec fields readably on a terminal', () => {
    const fields = Object.fromEntries(wsStatsRecord(stats()).fields);
    expect(fields.total_subscriptions).toBe('7 (stock 5, market 1, sector 1)');
    expect(fields.memory).toBe('rss 100.0 MiB, heap 1.5 MiB of 4.0 MiB');
    expect(fields.batching).toBe('on, every 30 ms');
    expect(fields.send_latency).toBe('p50 0.4 ms, p99 2.5 ms, max 3 ms');
    expect(fields.bytes_per_connection).toBe('2.0 KiB');
    // Unknown (no connection to measure) is "—", never a made-up figure
    expect(Object.fromEntries(wsStatsRecord(stats({ bytes_per_connection: null })).fields).bytes_per_connection).toBe('—');
    expect(Object.fromEntries(wsStatsRecord(stats({ saved_sessions: null })).fields).saved_sessions).toEqual({ text: 'unknown (Redis unreachable)', tone: 'bad' });
  });

  it('gives raw numbers in a fixed column order for pipes', () => {
    expect(wsStatsRow(stats(), new Date('2025-03-04T01:02:03Z'))).toEqual(['2025-03-04T01:02:03.000Z', 3, 7, 12.5, 1200, 0, 104_857_600, 1_572_864]);
  });
});

describe('dashboard history', () => {
  it('keeps the last `limit` samples of each trend', () => {
    let h = EMPTY_HISTORY;
    for (const n of [1, 2, 3]) h = appendHistory(h, stats({ active_connections: n, messages_per_second: n * 10 }), 2);
    expect(h.connections).toEqual([2, 3]);
    expect(h.messagesPerSecond).toEqual([20, 30]);
  });

  it('shows the last poll failure until the next sample', () => {
    const failed = reduceStatsView(EMPTY_STATS_VIEW, { type: 'error', message: 'cannot reach' });
    expect(failed.error).toBe('cannot reach');
    const ok = reduceStatsView(failed, { type: 'sample', stats: stats(), at: new Date(0) });
    expect(ok.error).toBeNull();
    expect(ok.latest?.active_connections).toBe(3);
  });
});

describe('pollStats', () => {
  it('takes `count` samples', async () => {
    let calls = 0;
    const seen: number[] = [];
    await pollStats(async () => ++calls, { intervalMs: 1, count: 3, signal: new AbortController().signal }, (n) => seen.push(n), { write: () => true });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('throws the first failure but only reports later ones', async () => {
    await expect(pollStats(async () => { throw new Error('down'); }, { intervalMs: 1, count: 2, signal: new AbortController().signal }, () => undefined, { write: () => true })).rejects.toThrow('down');
    let calls = 0;
    const errors: string[] = [];
    await pollStats(
      async () => {
        if (++calls === 2) throw new Error('blip');
        return calls;
      },
      { intervalMs: 1, count: 3, signal: new AbortController().signal },
      () => undefined,
      { write: (s: string) => errors.push(s) },
    );
    expect(calls).toBe(3);
    expect(errors).toEqual(['error: blip\n']);
  });

  it('stops as soon as the signal aborts, without waiting for the interval', async () => {
    const stop = new AbortController();
    const seen: number[] = [];
    await pollStats(async () => 1, { intervalMs: 3_600_000, signal: stop.signal }, (n) => {
      seen.push(n);
      stop.abort();
    }, { write: () => true });
    expect(seen).toEqual([1]);
  });
});
