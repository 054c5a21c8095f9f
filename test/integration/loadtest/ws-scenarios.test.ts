import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoadtest } from '../../../loadtest/runner.js';
import type { Report, ReportRow } from '../../../loadtest/types.js';
import type { TickSource } from '../../../loadtest/ws/tick-source.js';
import { newUserId, priceEvent, startWsStack, STOCKS, type WsStack } from '../ws/harness.js';

const CODES = Object.keys(STOCKS);

/** Ticks published straight on the market bus, stamped now, round-robin over the codes. */
function busTicks(s: WsStack): TickSource {
  let timer: NodeJS.Timeout | undefined;
  let accepted = 0;
  let started = 0;
  let n = 0;
  const pending = new Set<Promise<unknown>>();
  return {
    kind: 'test bus',
    controlled: true,
    async start(codes, rate) {
      accepted = 0;
      started = performance.now();
      timer = setInterval(() => {
        for (let k = 0; k < rate / 20; k++) {
          const code = codes[n % codes.length]!;
          const p = s.bus.publish(priceEvent(code, 1000 + (n++ % 7), { ts: Date.now() })).then(() => accepted++);
          pending.add(p);
          void p.finally(() => pending.delete(p));
        }
      }, 50);
    },
    async stop() {
      clearInterval(timer);
      await Promise.all([...pending]);
      return { accepted, rejected: 0, skipped: 0, elapsedS: started ? (performance.now() - started) / 1000 : 0 };
    },
  };
}

const row = (report: Report, metric: string): ReportRow => {
  const found = report.rows.find((r) => r.metric === metric);
  if (!found) throw new Error(`no row ${metric}: ${report.scenarios.map((s) => s.message).join('; ')}`);
  return found;
};

describe('WebSocket scenarios against a gateway stack', () => {
  let s: WsStack;
  let token: string;
  beforeAll(async () => {
    s = await startWsStack('loadtest');
    token = await s.token(newUserId());
  });
  afterAll(() => s.close());

  it.each([2, 0])('ws-fanout with %i worker threads counts every delivered message, its latency and the memory per connection', async (workers) => {
    // Given 20 clients, each on 2 of the 5 stocks: (i × 2 + j) mod 5 spreads them 8 per stock
    const report = await runLoadtest(
      { url: s.httpUrl, scenarios: ['ws-fanout'], token, duration: 2, connections: 20, ws: { codes: CODES, perConnection: 2, workers, tickRate: 100, daemonPid: process.pid } },
      { tickSource: busTicks(s) },
    );
    expect(report.scenarios[0]).toMatchObject({ status: expect.not.stringMatching(/error/), settings: { clients: 20, workers } });
    expect(row(report, 'connections established')).toMatchObject({ measured: 20, pass: null, note: expect.stringMatching(/below the target/) });
    expect(row(report, 'connect success')).toMatchObject({ measured: 100, pass: true });
    // Every offered message (accepted ticks × 8 subscribers) arrives: delivered ≈ offered.
    const delivered = row(report, 'messages delivered/s').measured!;
    const offered = row(report, 'messages offered/s').measured!;
    expect(offered).toBeGreaterThan(400); // ~100 ticks/s × 8
    expect(delivered / offered).toBeGreaterThan(0.7);
    expect(delivered / offered).toBeLessThan(1.15);
    expect(row(report, 'messages delivered/s').pass).toBeNull(); // far below 100,000 offered
    expect(row(report, 'latency p99')).toMatchObject({ target: { op: '<', value: 100 }, pass: expect.any(Boolean) });
    expect(row(report, 'latency p99').measured).toBeGreaterThanOrEqual(0);
    expect(row(report, 'sequence gaps')).toMatchObject({ measured: 0, pass: true });
    expect(row(report, 'disconnects during run')).toMatchObject({ measured: 0, pass: true });
    // Memory per connection comes from the gateway's stats (RSS growth; GC noise can make it unusable at 20 clients).
    const memory = row(report, 'daemon memory per connection');
    expect(memory).toMatchObject({ unit: 'KB', target: { op: '<', value: 100 } });
    if (memory.measured === null) expect(memory.note).toMatch(/RSS shrank/);
    else expect(memory.measured).toBeGreaterThan(0);
    expect(row(report, 'daemon heap per connection').measured).not.toBeNull();
    // CPU from /proc (the test daemon runs in this process, so its pid is ours) and of the generator (this process).
    expect(row(report, 'daemon CPU per delivered message')).toMatchObject({ unit: 'µs', target: { op: '<=', value: 2 }, measured: expect.any(Number) });
    expect(row(report, 'generator CPU')).toMatchObject({ unit: '% of a core', target: { op: '<', value: 100 }, measured: expect.any(Number) });
    expect(row(report, 'generator CPU per delivered message').measured).toBeGreaterThanOrEqual(0);
    // The clients left when the scenario ended.
    expect((await s.gateway.stats()).active_connections).toBe(0);
  });

  it('ws-reconnect-storm restores every session at once and replays the missed messages without a gap', async () => {
    const report = await runLoadtest(
      { url: s.httpUrl, scenarios: ['ws-reconnect-storm'], token, duration: 1, connections: 12, storm: { perConnection: 2, downtime: 0.5 }, ws: { codes: CODES, tickRate: 100 } },
      { tickSource: busTicks(s) },
    );
    expect(report.scenarios[0]!.message).toBeUndefined();
    expect(row(report, 'clients dropped at once').measured).toBe(12);
    expect(row(report, 'restorations succeeded')).toMatchObject({ measured: 100, pass: true });
    expect(row(report, 'sequence gaps')).toMatchObject({ measured: 0, pass: true });
    expect(row(report, 'messages lost in flight at the drop')).toMatchObject({ measured: 0, pass: true });
    // ~50 ticks over 5 stocks while away: each client's 2 stocks got some, and all of them were replayed.
    const missed = row(report, 'missed messages (server count)').measured!;
    expect(missed).toBeGreaterThan(12);
    expect(row(report, 'messages replayed').measured).toBe(missed);
    expect(report.pass).toBe(true);
  });

  it('reports a failed restoration when the sessions are gone', async () => {
    // Given sessions that expire at once, restoration must fail and the scenario say so
    const short = await startWsStack('loadtest-expiry', { options: { sessionTtlS: 1 } });
    try {
      const report = await runLoadtest(
        { url: short.httpUrl, scenarios: ['ws-reconnect-storm'], token: await short.token(newUserId()), duration: 1, connections: 4, storm: { perConnection: 1, downtime: 2.5 }, ws: { codes: CODES, tickRate: 40 } },
        { tickSource: busTicks(short) },
      );
      expect(row(report, 'restorations succeeded')).toMatchObject({ measured: 0, pass: false, note: expect.stringMatching(/SESSION_RESTORATION_FAILED/) });
      expect(report.pass).toBe(false);
    } finally {
      await short.close();
    }
  });
});
