/**
 * `ws-reconnect-storm`: N clients (one user) subscribe and read live updates; ticks pause
 * until every client is idle (nothing in flight), then all clients drop at once; ticks
 * resume while they are away (the messages they miss); then all reconnect with `session_id`,
 * evenly spread over the storm window (`storm.window`: 10,000 clients within 10 s, as after a
 * restart; 0 = all at once) while ticks keep flowing.
 * Every client must connect on its first attempt (no handshake reset or refused: the daemon's
 * listen backlog holds the storm), every restoration succeed with `reconnected`, continue the
 * sequence where the client left it, and replay the missed messages and the live ones that
 * follow without a sequence gap. Reported during the storm: the daemon's memory (RSS, from
 * /proc when its pid is known, else from `GET /v1/ws/stats`) and the tick → client latency of
 * the live updates the reconnected clients receive.
 *
 * So that the figures are the server's, not the generator's: against a loopback daemon the
 * clients connect from several source addresses (127.0.0.2 …), each waits for its handshake
 * as long as a real client's connect would (at least STORM_CONNECT_TIMEOUT_S; its time is
 * reported), and the generator's own event-loop delay is reported next to the kernel's count
 * of handshakes dropped because the daemon's accept queue was full.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { sampleDaemonLoopDelay, type LoopDelay } from '../daemon-loop.js';
import { readListenCounters, readListenLimits, type ListenCounters } from '../kernel-net.js';
import { correctness, makeRow } from '../targets.js';
import type { ReportRow, Scenario, ScenarioContext } from '../types.js';
import { Histogram } from '../histogram.js';
import { processCpuMs, processRssBytes } from '../proc-cpu.js';
import { readGatewayStats, waitForStats } from '../ws/stats.js';
import type { TickSource } from '../ws/tick-source.js';
import { openTracked, type TrackedSocket, type WsMessage } from '../ws/tracked-socket.js';
import { chooseTickSource, clientsThatFit, sleep, socketUrl } from './ws-common.js';

const S = 'ws-reconnect-storm';

/**
 * Least time a reconnecting client waits for its handshake: a browser or `ws` client after a
 * restart waits for its TCP connect far longer than the 10 s of a request timeout, so a
 * handshake the daemon answers late still is a first-attempt success (its time is reported).
 */
export const STORM_CONNECT_TIMEOUT_S = 30;

/** Loopback source addresses the storm's clients are spread over (one address is not a real storm). */
const SOURCE_ADDRESSES = 8;

/** The local address client `i` connects from: spread over 127.0.0.2… when the daemon is on 127.x, else the default. */
export function sourceAddress(url: string, i: number): string | undefined {
  const host = new URL(url).hostname;
  return /^127\.\d+\.\d+\.\d+$/.test(host) ? `127.0.0.${2 + (i % SOURCE_ADDRESSES)}` : undefined;
}

interface Client {
  socket: TrackedSocket | null;
  sessionId: string;
  /** Sequence read before the drop. */
  before: number;
  /** Gaps and skipped numbers seen on earlier sockets of this client. */
  gaps: number;
  missing: number;
}

interface Restored {
  ok: number;
  failures: Record<string, number>;
  /** Handshakes that failed (reset, refused, timed out, HTTP error): no second attempt is made. */
  connectFailures: Record<string, number>;
  /** performance.now() of the first and the last reconnect attempt. */
  firstAt: number;
  lastAt: number;
  /** Tick → client latency (µs) of live updates read by reconnected clients during the storm. */
  live: Histogram;
  /** Attempt → open (µs) of the handshakes that succeeded. */
  handshake: Histogram;
  /** The generator's own event-loop delay p99 during the storm (ms). */
  generatorDelayP99Ms: number | null;
  /** Kernel accept-queue counters before and after the storm (machine-wide). */
  kernel: { before: ListenCounters | null; after: ListenCounters | null };
  loadAverage: number[];
  /** The daemon's CPU time (ms, from /proc) over the storm (first attempt to last answer) and that wall time. */
  daemonCpu: { cpuMs: number; wallMs: number } | null;
  /** The daemon's own worst event-loop delay during the storm (its /metrics, with an admin token). */
  daemonLoop?: LoopDelay;
  time: Histogram;
  lostInFlight: number;
  missed: number;
  replayed: number;
  truncated: number;
  memory?: StormMemory;
}

/** Open a client and subscribe it; the reason when it could not. */
async function join(url: string, targets: string[], timeoutMs: number): Promise<Client | string> {
  try {
    const socket = await openTracked(url, timeoutMs);
    const hello = await socket.next((m) => m.type === 'connected', timeoutMs);
    const max = Number(hello.max_targets_per_request) || 50;
    for (let i = 0; i < targets.length; i += max) {
      socket.send({ type: 'subscribe', subscription_type: 'stock', targets: targets.slice(i, i + max) });
      const reply = await socket.next((m) => m.type === 'subscribed' || m.type === 'error', timeoutMs);
      if (reply.type === 'error') throw new Error(String(reply.code));
    }
    return { socket, sessionId: String(hello.session_id), before: 0, gaps: 0, missing: 0 };
  } catch (err) {
    return (err as Error).message;
  }
}

/** Resolve once no client read a frame for `quietMs` (at most `maxMs`). */
async function quiesce(clients: Client[], quietMs: number, maxMs: number, signal: AbortSignal): Promise<void> {
  const started = performance.now();
  for (;;) {
    const last = Math.max(...clients.map((c) => c.socket?.lastFrameAt ?? 0));
    const now = performance.now();
    if (now - last >= quietMs || now - started >= maxMs) return;
    await sleep(Math.min(quietMs, Math.max(10, quietMs - (now - last))), signal);
  }
}

async function restore(ctx: ScenarioContext, c: Client, token: string | null, r: Restored, timeoutMs: number, localAddress: string | undefined): Promise<void> {
  const t0 = performance.now();
  r.lastAt = t0;
  const reason = (why: string) => void (r.failures[why] = (r.failures[why] ?? 0) + 1);
  // Updates of ticks stamped after this client's socket opened are live (older ones are the replay).
  let openedAt = Infinity;
  const onData = (m: WsMessage) => {
    const stamped = typeof m.timestamp === 'string' ? Date.parse(m.timestamp) : NaN;
    if (stamped >= openedAt) r.live.record(Math.max(0, Date.now() - stamped) * 1000);
  };
  let socket: TrackedSocket;
  try {
    socket = await openTracked(socketUrl(ctx, { session_id: c.sessionId, token }), timeoutMs, { onData, localAddress });
    r.handshake.record((performance.now() - t0) * 1000);
  } catch (err) {
    const why = (err as Error).message;
    r.connectFailures[why] = (r.connectFailures[why] ?? 0) + 1;
    return reason(why);
  }
  openedAt = Date.now();
  try {
    // Gaps are checked from `reconnected` on; its own distance to the sequence read before
    // the drop is counted apart, as messages lost in flight.
    c.socket = socket;
    let first: WsMessage = await socket.next((m) => m.type === 'reconnected' || m.type === 'connected' || m.type === 'error', timeoutMs);
    // A failed restoration opens a new session: `connected`, with the error queued next to it.
    if (first.type === 'connected') first = await socket.next((m) => m.type === 'error', 1000).catch(() => first);
    if (first.type !== 'reconnected') return reason(first.type === 'error' ? `${String(first.code)} (${String((first.details as { reason?: string })?.reason ?? '')})` : 'new session instead');
    r.ok++;
    r.time.record((performance.now() - t0) * 1000);
    // A batch frame carrying `reconnected` takes the number before it (protocol.ts): count from the first number read.
    r.lostInFlight += Math.max(0, (socket.firstSequence ?? c.before + 1) - c.before - 1);
    r.missed += Number(first.missed_messages_count) || 0;
    r.replayed += Number(first.replayed_messages) || 0;
    if (first.history_truncated === true) r.truncated++;
  } catch (err) {
    reason((err as Error).message);
  }
}

async function storm(ctx: ScenarioContext, clients: Client[], source: TickSource, codes: string[], token: string | null): Promise<Restored> {
  const o = ctx.options;
  const timeoutMs = Math.max(o.timeout, STORM_CONNECT_TIMEOUT_S) * 1000;
  ctx.progress({ type: 'phase', phase: 'quiesce' });
  await source.stop();
  await quiesce(clients, 300, 5000, ctx.signal);
  const before = await waitForStats(ctx.session.api, () => true, 1000, ctx.signal, token);
  const saved0 = before.stats?.saved_sessions ?? null;
  ctx.progress({ type: 'phase', phase: 'drop', detail: `${clients.length} clients` });
  for (const c of clients) {
    c.before = c.socket!.lastSequence;
    c.gaps += c.socket!.gaps;
    c.missing += c.socket!.missing;
    c.socket!.ws.terminate();
    c.socket = null;
  }
  // Restoration needs the saved session: wait until the daemon has saved every one.
  const saved = await waitForStats(ctx.session.api, (s) => saved0 === null || (s.saved_sessions ?? 0) >= saved0 + clients.length, 10_000, ctx.signal, token);
  if (!saved.stats) await sleep(1000, ctx.signal);
  await source.start(codes, o.ws.tickRate);
  await sleep(o.storm.downtime * 1000, ctx.signal);
  const windowMs = o.stormWindow * 1000;
  ctx.progress({ type: 'phase', phase: 'reconnect', detail: windowMs > 0 ? `${clients.length} clients within ${o.stormWindow} s` : `${clients.length} clients at once` });
  const r: Restored = {
    ok: 0, failures: {}, connectFailures: {}, firstAt: performance.now(), lastAt: 0, live: new Histogram(),
    handshake: new Histogram(), generatorDelayP99Ms: null, kernel: { before: readListenCounters(), after: null }, loadAverage: [], daemonCpu: null,
    time: new Histogram(), lostInFlight: 0, missed: 0, replayed: 0, truncated: 0,
  };
  const memory = sampleDaemonMemory(ctx, token);
  const loop = sampleDaemonLoopDelay(ctx.session.api, await ctx.session.adminToken().catch(() => null));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const pid = o.ws.daemonPid;
  const cpu0 = pid !== undefined ? processCpuMs(pid) : null;
  try {
    // Evenly spread: each client starts at its due time (those already due start together).
    const pending: Promise<void>[] = [];
    const t0 = performance.now();
    for (const [i, c] of clients.entries()) {
      const wait = t0 + (windowMs * i) / clients.length - performance.now();
      if (wait >= 2) await sleep(wait, ctx.signal);
      pending.push(restore(ctx, c, token, r, timeoutMs, sourceAddress(ctx.url, i)));
    }
    await Promise.all(pending);
    const cpu1 = pid !== undefined ? processCpuMs(pid) : null;
    if (cpu0 !== null && cpu1 !== null) r.daemonCpu = { cpuMs: cpu1 - cpu0, wallMs: performance.now() - r.firstAt };
    r.kernel.after = readListenCounters();
    r.loadAverage = loadavg();
    // Live updates after the replay must continue the sequence too.
    await sleep(1000, ctx.signal);
  } finally {
    delay.disable();
    r.generatorDelayP99Ms = delay.count > 0 ? delay.percentile(99) / 1e6 : null;
    r.memory = await memory.stop();
    r.daemonLoop = await loop.stop();
  }
  await source.stop();
  await quiesce(clients, 300, 5000, ctx.signal);
  return r;
}

/** The daemon's RSS before and at its peak during the storm, and where it was read. */
interface StormMemory {
  before: number | null;
  peak: number | null;
  source: '/proc' | 'ws stats' | null;
}

/**
 * Sample the daemon's RSS every 100 ms until stop(): from /proc when its pid is known (the
 * kernel's figure, nothing asked of the daemon), else from its `GET /v1/ws/stats`.
 */
function sampleDaemonMemory(ctx: ScenarioContext, token: string | null): { stop(): Promise<StormMemory> } {
  const pid = ctx.options.ws.daemonPid;
  const read = async (): Promise<number | null> =>
    pid !== undefined ? processRssBytes(pid) : ((await readGatewayStats(ctx.session.api, ctx.signal, token))?.rss ?? null);
  const out: StormMemory = { before: null, peak: null, source: null };
  let stopped = false;
  const loop = (async () => {
    for (let first = true; !stopped; first = false) {
      const rss = await read().catch(() => null);
      if (rss !== null) {
        out.source = pid !== undefined ? '/proc' : 'ws stats';
        if (first) out.before = rss;
        out.peak = Math.max(out.peak ?? 0, rss);
      }
      await new Promise((resolve) => setTimeout(resolve, 100).unref());
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return out;
    },
  };
}

function rows(n: number, r: Restored, clients: Client[], controlled: boolean, notes: string[]): ReportRow[] {
  // Sockets replaced by a restoration had their counts added to the client at the drop.
  const gaps = clients.reduce((a, c) => a + c.gaps + (c.socket?.gaps ?? 0), 0);
  const missing = clients.reduce((a, c) => a + c.missing + (c.socket?.missing ?? 0), 0);
  const failures = Object.entries(r.failures).map(([k, v]) => `${k} × ${v}`).join(', ');
  const t = r.time.summary(1000);
  const connectFailed = Object.values(r.connectFailures).reduce((a, b) => a + b, 0);
  const resets = Object.entries(r.connectFailures).map(([k, v]) => `${k} × ${v}`).join(', ');
  const live = r.live.summary(1000);
  const hs = r.handshake.summary(1000);
  const ms = (v: number | null | undefined) => (v == null ? null : Math.round(v * 10) / 10);
  const { before, after } = r.kernel;
  const overflows = before && after ? after.overflows - before.overflows : null;
  const limits = readListenLimits();
  const kernelNote = `TcpExt ListenOverflows, machine-wide; somaxconn ${limits.somaxconn ?? '?'}, tcp_max_syn_backlog ${limits.maxSynBacklog ?? '?'}, syncookies ${limits.syncookies ?? '?'}`;
  const mb = (bytes: number | null | undefined) => (bytes == null ? null : Math.round((bytes / 2 ** 20) * 10) / 10);
  const memoryNote = r.memory?.source ? `read from ${r.memory.source}` : 'daemon memory unavailable (give --daemon-pid, or a target serving /v1/ws/stats)';
  const window = n > 1 ? (r.lastAt - r.firstAt) / 1000 : 0;
  return [
    makeRow(S, 'clients dropped at once', n, '', null, { note: notes.join('; ') || undefined }),
    makeRow(S, 'reconnect window (first to last attempt)', Math.round(window * 100) / 100, 's', null, { note: n > 0 ? `${Math.round(n / Math.max(window, 0.001)).toLocaleString('en-US')} connects/s` : undefined }),
    makeRow(S, 'connected on the first attempt', n === 0 ? null : ((n - connectFailed) / n) * 100, '%', correctness('==', 100), { note: resets ? `handshakes failed: ${resets}` : undefined }),
    makeRow(S, 'restorations succeeded', n === 0 ? null : (r.ok / n) * 100, '%', correctness('==', 100), { note: failures ? `failures: ${failures}` : undefined }),
    makeRow(S, 'daemon RSS before the storm', mb(r.memory?.before), 'MB', null, { note: memoryNote }),
    makeRow(S, 'daemon RSS peak during the storm', mb(r.memory?.peak), 'MB'),
    makeRow(S, 'tick → client p50 during the storm', live.p50, 'ms', null, { note: `${live.count} live updates read by reconnected clients` }),
    makeRow(S, 'tick → client p99 during the storm', live.p99, 'ms'),
    makeRow(S, 'handshake time p50', hs.p50, 'ms', null, { note: 'attempt → open, handshakes that succeeded' }),
    makeRow(S, 'handshake time p99', hs.p99, 'ms'),
    makeRow(S, 'accept-queue overflows during the storm', overflows, '', null, { note: kernelNote }),
    makeRow(S, 'daemon CPU during the storm', r.daemonCpu ? Math.round((r.daemonCpu.cpuMs / r.daemonCpu.wallMs) * 1000) / 10 : null, '% of a core', null, {
      note: r.daemonCpu ? `${Math.round(r.daemonCpu.cpuMs)} ms over ${(r.daemonCpu.wallMs / 1000).toFixed(1)} s, from /proc (first attempt to last answer)` : 'needs --daemon-pid',
    }),
    makeRow(S, 'daemon CPU per reconnect', r.daemonCpu && n > 0 ? Math.round((r.daemonCpu.cpuMs / n) * 100) / 100 : null, 'ms', null, { note: 'handshake, restore, replay, and the live fan-out meanwhile' }),
    makeRow(S, 'daemon event-loop delay p99 during the storm', ms(r.daemonLoop?.p99Ms), 'ms', null, {
      note: r.daemonLoop?.p99Ms != null ? 'worst of its /metrics scrapes every 0.5 s (nodejs_eventloop_lag_p99_seconds)' : 'needs an admin (the daemon’s /metrics)',
    }),
    makeRow(S, 'daemon event-loop delay max during the storm', ms(r.daemonLoop?.maxMs), 'ms'),
    makeRow(S, 'generator event-loop delay p99', r.generatorDelayP99Ms === null ? null : Math.round(r.generatorDelayP99Ms * 10) / 10, 'ms', null, { note: 'the load generator itself: a large delay means its clients, not the daemon, were late' }),
    makeRow(S, 'load average at the end of the storm', r.loadAverage[0] === undefined ? null : Math.round(r.loadAverage[0] * 100) / 100, '', null, { note: r.loadAverage.length ? `1, 5, 15 min: ${r.loadAverage.map((l) => l.toFixed(2)).join(', ')}` : undefined }),
    makeRow(S, 'restore time p50', t.p50, 'ms'),
    makeRow(S, 'restore time p99', t.p99, 'ms'),
    makeRow(S, 'sequence gaps', gaps, '', correctness('==', 0), { note: gaps > 0 ? `${missing} sequence numbers skipped` : undefined }),
    makeRow(S, 'messages lost in flight at the drop', r.lostInFlight, '', controlled ? correctness('==', 0) : null, {
      note: controlled ? undefined : 'updates did not pause before the drop (daemon feed): messages in flight may be lost',
    }),
    makeRow(S, 'missed messages (server count)', r.missed, ''),
    makeRow(S, 'messages replayed', r.replayed, '', null, { note: r.truncated > 0 ? `${r.truncated} sessions beyond the history got a snapshot instead` : undefined }),
  ];
}

/** The reconnect-storm scenario. */
export const wsReconnectStorm: Scenario = {
  name: S,
  description: 'Many clients drop and restore their sessions at once; every restoration succeeds and replays without gaps',
  async run(ctx) {
    const o = ctx.options;
    const notes: string[] = [];
    const token = await ctx.session.token().catch(() => null);
    const pool = o.ws.codes ?? (await ctx.session.stockCodes(Math.max(o.ws.stocks, o.storm.perConnection)));
    const fit = await clientsThatFit(o.stormClients);
    notes.push(...fit.notes);
    const { source, note } = await chooseTickSource(ctx, token);
    if (note) notes.push(note);
    const k = Math.min(o.storm.perConnection, pool.length);
    ctx.settings({ clients: fit.count, per_connection: k, downtime_s: o.storm.downtime, window_s: o.stormWindow, tick_source: source.kind });
    ctx.progress({ type: 'phase', phase: 'connect', detail: `${fit.count} clients` });
    const url = socketUrl(ctx, { token });
    const clients: Client[] = [];
    const failures: Record<string, number> = {};
    try {
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < fit.count; i = next++) {
          const c = await join(url, Array.from({ length: k }, (_, j) => pool[(i * k + j) % pool.length]!), o.timeout * 1000);
          if (typeof c === 'string') failures[c] = (failures[c] ?? 0) + 1;
          else clients.push(c);
        }
      };
      await Promise.all(Array.from({ length: Math.min(o.ws.connectConcurrency, fit.count) }, lane));
      const why = Object.entries(failures).map(([r, n]) => `${r} × ${n}`).join(', ');
      if (clients.length === 0) throw new Error(`no client could connect and subscribe (${why})`);
      if (clients.length < fit.count) notes.push(`${fit.count - clients.length} clients could not connect and subscribe: ${why}`);
      await source.start(pool, o.ws.tickRate);
      await sleep(Math.min(2, o.duration) * 1000, ctx.signal);
      const restored = await storm(ctx, clients, source, pool, token);
      return rows(clients.length, restored, clients, source.controlled, notes);
    } finally {
      await source.stop();
      for (const c of clients) c.socket?.ws.terminate();
    }
  },
};
