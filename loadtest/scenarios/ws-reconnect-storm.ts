/**
 * `ws-reconnect-storm`: N clients (one user) subscribe and read live updates; ticks pause
 * until every client is idle (nothing in flight), then all clients drop at once; ticks
 * resume while they are away (the messages they miss); then all reconnect at once with
 * `session_id`. Every restoration must succeed with
 * `reconnected`, continue the sequence where the client left it, and replay the missed
 * messages and the live ones that follow without a sequence gap.
 */
import { correctness, makeRow } from '../targets.js';
import type { ReportRow, Scenario, ScenarioContext } from '../types.js';
import { Histogram } from '../histogram.js';
import { waitForStats } from '../ws/stats.js';
import type { TickSource } from '../ws/tick-source.js';
import { openTracked, type TrackedSocket, type WsMessage } from '../ws/tracked-socket.js';
import { chooseTickSource, clientsThatFit, sleep, socketUrl } from './ws-common.js';

const S = 'ws-reconnect-storm';

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
  time: Histogram;
  lostInFlight: number;
  missed: number;
  replayed: number;
  truncated: number;
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

async function restore(ctx: ScenarioContext, c: Client, token: string | null, r: Restored, timeoutMs: number): Promise<void> {
  const t0 = performance.now();
  const reason = (why: string) => void (r.failures[why] = (r.failures[why] ?? 0) + 1);
  try {
    // Gaps are checked from `reconnected` on; its own distance to the sequence read before
    // the drop is counted apart, as messages lost in flight.
    const socket = await openTracked(socketUrl(ctx, { session_id: c.sessionId, token }), timeoutMs);
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
  const timeoutMs = o.timeout * 1000;
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
  ctx.progress({ type: 'phase', phase: 'reconnect', detail: `${clients.length} clients at once` });
  const r: Restored = { ok: 0, failures: {}, time: new Histogram(), lostInFlight: 0, missed: 0, replayed: 0, truncated: 0 };
  await Promise.all(clients.map((c) => restore(ctx, c, token, r, timeoutMs)));
  // Live updates after the replay must continue the sequence too.
  await sleep(1000, ctx.signal);
  await source.stop();
  await quiesce(clients, 300, 5000, ctx.signal);
  return r;
}

function rows(n: number, r: Restored, clients: Client[], controlled: boolean, notes: string[]): ReportRow[] {
  // Sockets replaced by a restoration had their counts added to the client at the drop.
  const gaps = clients.reduce((a, c) => a + c.gaps + (c.socket?.gaps ?? 0), 0);
  const missing = clients.reduce((a, c) => a + c.missing + (c.socket?.missing ?? 0), 0);
  const failures = Object.entries(r.failures).map(([k, v]) => `${k} × ${v}`).join(', ');
  const t = r.time.summary(1000);
  return [
    makeRow(S, 'clients dropped at once', n, '', null, { note: notes.join('; ') || undefined }),
    makeRow(S, 'restorations succeeded', n === 0 ? null : (r.ok / n) * 100, '%', correctness('==', 100), { note: failures ? `failures: ${failures}` : undefined }),
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
    ctx.settings({ clients: fit.count, per_connection: k, downtime_s: o.storm.downtime, tick_source: source.kind });
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
