/**
 * `ws-fanout`: N WebSocket clients over worker threads, each subscribed to K stocks of a
 * pool (and optionally to a market, the pool then drawn from that market), while ticks flow for the run's duration. Measures connect success and time,
 * delivered messages/s (messages inside `batch` frames counted one by one), latency from a
 * message's timestamp to its receipt, the daemon's memory per connection (RSS growth over
 * the clients, from GET /v1/ws/stats), sequence gaps and disconnects.
 */
import { Histogram } from '../histogram.js';
import { correctness, ISSUE_TARGETS, makeRow, scaleJudgement, SPEC_TARGETS } from '../targets.js';
import { LIMITS } from '../options.js';
import { processCpuMs } from '../proc-cpu.js';
import type { ReportRow, Scenario, ScenarioContext } from '../types.js';
import { startClientPool, type PoolMeasure, type PoolReady } from '../ws/client-pool.js';
import { readGatewayStats, type GatewayStats } from '../ws/stats.js';
import type { TickStats } from '../ws/tick-source.js';
import { chooseTickSource, clientsThatFit, sleep, socketUrl, untilAborted } from './ws-common.js';

const S = 'ws-fanout';
const codeText = (m: Record<string, number>) => Object.entries(m).map(([k, v]) => `${k} × ${v}`).join(', ');

interface Outcome {
  requested: number;
  ready: PoolReady;
  measure: PoolMeasure;
  ticks: TickStats;
  controlled: boolean;
  subscribersPerCode: number;
  before: GatewayStats | null;
  after: GatewayStats | null;
  /** CPU ms over the measured window: the daemon's (from /proc, when its pid is known) and this process's (the generator). */
  cpu: { daemonMs: number | null; generatorMs: number };
  notes: string[];
}

/** CPU of the daemon and of the generator over the measured window. */
function cpuRows(o: Outcome): ReportRow[] {
  const seconds = o.measure.elapsedMs / 1000;
  if (seconds <= 0) return [];
  const { daemonMs, generatorMs } = o.cpu;
  const perMessage = daemonMs !== null && o.measure.messages > 0 ? (daemonMs * 1000) / o.measure.messages : null;
  return [
    makeRow(S, 'daemon CPU per delivered message', perMessage, 'µs', ISSUE_TARGETS.wsDaemonCpuPerMessageUs, daemonMs === null ? { notEvaluated: 'daemon pid unknown or not on this machine (--daemon-pid)' } : { note: 'utime+stime from /proc over the measured window ÷ messages delivered' }),
    makeRow(S, 'daemon CPU', daemonMs === null ? null : (daemonMs / 10 / seconds), '% of a core'),
    makeRow(S, 'generator CPU', generatorMs / 10 / seconds, '% of a core', ISSUE_TARGETS.wsGeneratorCpuPercent, { note: 'this process: client worker threads, coordinator and tick source' }),
    makeRow(S, 'generator CPU per delivered message', o.measure.messages > 0 ? (generatorMs * 1000) / o.measure.messages : null, 'µs'),
  ];
}

function connectionRows(o: Outcome): ReportRow[] {
  const { ready, requested } = o;
  const failures = codeText(ready.failures);
  return [
    makeRow(S, 'clients requested', requested, '', null, { note: o.notes.join('; ') || undefined }),
    makeRow(S, 'connections established', ready.connected, '', SPEC_TARGETS.wsConnections, scaleJudgement(ready.connected, SPEC_TARGETS.wsConnections, requested, 'connections')),
    makeRow(S, 'connect success', (ready.connected / requested) * 100, '%', correctness('==', 100), { note: failures ? `failures: ${failures}` : undefined }),
    makeRow(S, 'connect time p50', ready.connect.summary(1000).p50, 'ms'),
    makeRow(S, 'connect time p99', ready.connect.summary(1000).p99, 'ms'),
    makeRow(S, 'subscribe time p99', ready.subscribe.summary(1000).p99, 'ms'),
  ];
}

function memoryRows(o: Outcome): ReportRow[] {
  const { before, after } = o;
  const metric = 'daemon memory per connection';
  const added = before?.active_connections != null && after?.active_connections != null ? after.active_connections - before.active_connections : null;
  if (added === null || before?.rss == null || after?.rss == null) {
    return [makeRow(S, metric, null, 'KB', SPEC_TARGETS.wsKbPerConnection, { notEvaluated: 'GET /v1/ws/stats gave no connection or memory figures' })];
  }
  if (added <= 0) return [makeRow(S, metric, null, 'KB', SPEC_TARGETS.wsKbPerConnection, { notEvaluated: 'no connection was added on the daemon' })];
  const rows: ReportRow[] = [];
  const rssGrowth = after.rss - before.rss;
  // RSS moves with garbage collection too: a shrink means the figure says nothing about the clients.
  rows.push(
    rssGrowth > 0
      ? makeRow(S, metric, rssGrowth / added / 1024, 'KB', SPEC_TARGETS.wsKbPerConnection, { note: `RSS growth over ${added} connections and their subscriptions, before ticks (garbage not yet collected included)` })
      : makeRow(S, metric, null, 'KB', SPEC_TARGETS.wsKbPerConnection, { notEvaluated: `RSS shrank by ${Math.round(-rssGrowth / 1024)} KB while ${added} clients connected (garbage collected meanwhile): unusable; run ws-fanout alone or with more clients` }),
  );
  if (before.heap !== null && after.heap !== null) rows.push(makeRow(S, 'daemon heap per connection', (after.heap - before.heap) / added / 1024, 'KB'));
  return rows;
}

function deliveryRows(o: Outcome): ReportRow[] {
  const { measure: m, ticks } = o;
  const seconds = m.elapsedMs / 1000;
  const rate = seconds > 0 ? m.messages / seconds : null;
  const offered = o.controlled && ticks.elapsedS > 0 ? (ticks.accepted / ticks.elapsedS) * o.subscribersPerCode : null;
  const lat = m.latency.summary(1000);
  const tickNote = ticks.rejected > 0 || ticks.skipped > 0 ? `ticks rejected ${ticks.rejected}, skipped ${ticks.skipped}${ticks.lastError ? `: ${ticks.lastError}` : ''}` : undefined;
  const rows = [
    makeRow(S, 'messages delivered/s', rate, 'msg/s', SPEC_TARGETS.wsMessagesPerSecond, scaleJudgement(rate, SPEC_TARGETS.wsMessagesPerSecond, offered, 'messages/s')),
  ];
  if (o.controlled) {
    rows.push(makeRow(S, 'ticks accepted/s', ticks.elapsedS > 0 ? ticks.accepted / ticks.elapsedS : null, 'tick/s', null, { note: tickNote }));
    rows.push(makeRow(S, 'messages offered/s', offered, 'msg/s', null, { note: 'accepted ticks × subscribers per stock' }));
  }
  const noMessages = m.messages === 0 ? { note: 'no message arrived during the measurement' } : {};
  rows.push(
    makeRow(S, 'latency p50', lat.p50, 'ms', null, noMessages),
    makeRow(S, 'latency p95', lat.p95, 'ms'),
    makeRow(S, 'latency p99', lat.p99, 'ms', SPEC_TARGETS.wsLatencyP99Ms, { note: 'from the message timestamp (1 ms resolution) to receipt; assumes one clock' }),
    makeRow(S, 'latency max', lat.max, 'ms'),
    makeRow(S, 'sequence gaps', m.gaps, '', correctness('==', 0), { note: m.gaps > 0 ? `${m.missing} messages missing` : undefined }),
    makeRow(S, 'disconnects during run', m.disconnects, '', correctness('==', 0), { note: codeText(m.closeCodes) ? `close codes: ${codeText(m.closeCodes)}` : undefined }),
  );
  const errors = codeText(m.errors);
  if (errors) rows.push(makeRow(S, 'error messages', Object.values(m.errors).reduce((a, b) => a + b, 0), '', null, { note: errors }));
  return rows;
}

async function execute(ctx: ScenarioContext): Promise<Outcome> {
  const o = ctx.options;
  const notes: string[] = [];
  const token = await ctx.session.token().catch((err: Error) => {
    notes.push(`anonymous clients: no token (${err.message})`);
    return null;
  });
  // With a market subscription the pool is drawn from that market, so every client receives every tick.
  const codes = o.ws.codes ?? (await ctx.session.stockCodes(Math.max(o.ws.stocks, o.ws.perConnection), o.ws.market));
  const wholePool = o.ws.market !== undefined && o.ws.codes === undefined;
  if (o.ws.market && !wholePool) notes.push(`market ${o.ws.market} subscribed over given codes: messages offered count the stock subscriptions only`);
  const fit = await clientsThatFit(o.wsConnections);
  notes.push(...fit.notes);
  const perConnection = Math.min(o.ws.perConnection, codes.length);
  // --rate for ws-fanout: messages/s per client; each client holds perConnection of the pool's stocks (all of them with a market).
  const tickRate = o.ws.ratePerClient === undefined ? o.ws.tickRate : Math.min(LIMITS.maxTickRate, (o.ws.ratePerClient * codes.length) / (wholePool ? codes.length : perConnection));
  const { source, note } = await chooseTickSource(ctx, token);
  if (note) notes.push(note);
  ctx.settings({ clients: fit.count, workers: o.wsWorkers, stocks: codes.length, per_connection: perConnection, market: o.ws.market ?? null, tick_source: source.kind, tick_rate: source.controlled ? tickRate : null, rate_per_client: o.ws.ratePerClient ?? null });
  const before = await readGatewayStats(ctx.session.api, ctx.signal, token);
  ctx.progress({ type: 'phase', phase: 'connect', detail: `${fit.count} clients` });
  const pool = startClientPool(
    { url: socketUrl(ctx, { token }), connections: fit.count, workers: o.wsWorkers, codes, perConnection, market: o.ws.market ?? null, connectConcurrency: o.ws.connectConcurrency, timeoutMs: o.timeout * 1000 },
    (connected, failed) => ctx.progress({ type: 'tick', elapsed_s: 0, planned_s: 0, connections: connected, failed }),
  );
  try {
    const ready = await untilAborted(pool.ready(), ctx.signal);
    if (ready.connected === 0) {
      // Nothing to measure: report the connection failures without waiting out the duration.
      const none: PoolMeasure = { messages: 0, frames: 0, latency: new Histogram(), gaps: 0, missing: 0, disconnects: 0, closeCodes: {}, errors: {}, elapsedMs: 0 };
      const ticks: TickStats = { accepted: 0, rejected: 0, skipped: 0, elapsedS: 0 };
      return { requested: fit.count, ready, measure: none, ticks, controlled: source.controlled, subscribersPerCode: 0, before, after: null, cpu: { daemonMs: null, generatorMs: 0 }, notes };
    }
    const after = await readGatewayStats(ctx.session.api, ctx.signal, token);
    await source.start(codes, tickRate);
    ctx.progress({ type: 'phase', phase: 'measure' });
    const daemonPid = o.ws.daemonPid;
    const cpu0 = { daemon: daemonPid === undefined ? null : processCpuMs(daemonPid), generator: process.cpuUsage() };
    pool.measure();
    let counted = 0;
    for (let t = 0; t < o.duration; t = Math.min(o.duration, t + 1)) {
      const step = Math.min(1, o.duration - t);
      await sleep(step * 1000, ctx.signal);
      const now = pool.messagesSoFar();
      ctx.progress({ type: 'tick', elapsed_s: Math.min(o.duration, t + 1), planned_s: o.duration, connections: ready.connected, messages_per_s: (now - counted) / step });
      counted = now;
    }
    const measure = await pool.stop();
    const daemon1 = daemonPid === undefined ? null : processCpuMs(daemonPid);
    const generator = process.cpuUsage(cpu0.generator);
    const cpu = { daemonMs: cpu0.daemon !== null && daemon1 !== null ? daemon1 - cpu0.daemon : null, generatorMs: (generator.user + generator.system) / 1000 };
    const ticks = await source.stop();
    const subscribersPerCode = wholePool ? ready.connected : (ready.connected * perConnection) / codes.length;
    return { requested: fit.count, ready, measure, ticks, controlled: source.controlled, subscribersPerCode, before, after, cpu, notes };
  } finally {
    await source.stop();
    await pool.close();
  }
}

/** The WebSocket fan-out scenario. */
export const wsFanout: Scenario = {
  name: S,
  description: 'N WebSocket clients × K stocks while ticks flow; spec: 10,000 connections, p99 < 100 ms, 100,000 msg/s, < 100 KB/connection',
  async run(ctx) {
    const outcome = await execute(ctx);
    return [...connectionRows(outcome), ...deliveryRows(outcome), ...cpuRows(outcome), ...memoryRows(outcome)];
  },
};
