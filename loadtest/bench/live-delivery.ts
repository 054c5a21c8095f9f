/**
 * Live-screen delivery end to end: a daemon in a child process (temp data dir, own
 * Redis prefix, the full sample market), `connections` WebSocket clients holding `screens`
 * live screens in all — templates with market and per_page overrides (10–200) and presets
 * saved through the API by each user (enterprise users, so no tier limit is hit) — and a feed
 * of one tick per stock per second over the whole market through POST /admin/ticks (every
 * tick reaches every daemon's live screens through the market bus, as a vendor feed would).
 *
 * Rounds alternate: `seconds` with the screens subscribed, then `seconds` with none (the
 * connections stay open), then the screens again. Per round: ticks accepted, daemon CPU per
 * tick (from /proc), screen_update messages and entries/exits received. Latency from tick to
 * client: a `screen_update` does not carry its tick, so it is attributed to the latest tick sent
 * (by this process, same clock) of a stock it names (entered or exited) that was sent before
 * the message's own timestamp (when the daemon built it); receipt minus that send time
 * covers the POST, the bus, the evaluation, the WebSocket batch interval and the client.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsWholeList } from '../../daemon/live/whole-list.js';
import { expressionOf } from '../../daemon/screening/engine/query.js';
import { applyTemplateOverrides, listTemplates } from '../../daemon/screening/templates/templates.js';
import { accessTokenOf, createApiClient, type ApiClient } from '../api.js';
import { wsBase } from '../guard.js';
import { Histogram, type HistogramSummary } from '../histogram.js';
import { processCpuMs } from '../proc-cpu.js';
import { BENCH_USER_LIMIT } from '../session.js';
import { makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';
import { loadQuotes } from '../ws/tick-source.js';
import { openTracked, type TrackedSocket, type WsMessage } from '../ws/tracked-socket.js';
import { startChild } from './children.js';
import { adminLogin, loadSampleMarket, type MarketSize } from './market.js';
import { benchDaemonConfig } from './plan.js';
import { deletePrefix, ensureBenchRedis } from './redis.js';
import { startFeed } from './live-feed.js';

const SCENARIO = 'live screens (delivery, 1 daemon)';
const MARKET_CHOICES = [undefined, 'KOSPI', 'KOSDAQ'] as const;

/** Options of the delivery bench. */
export interface LiveDeliveryOptions {
  market: MarketSize;
  connections: number;
  screens: number;
  /** Users the connections belong to (each saves `presetsPerUser` presets). */
  users: number;
  presetsPerUser: number;
  seconds: number;
  rounds: number;
  /** A data dir the sample market is loaded in already (bench-live's own): the daemon starts on it (kept). */
  dataDir?: string;
  log(line: string): void;
}

/** Figures of one round. */
interface Round {
  screens: boolean;
  seconds: number;
  ticks: number;
  rejected: number;
  daemon_cpu_us_per_tick: number | null;
  updates: number;
  entries: number;
  exits: number;
  /** CPU of this process (the 500 clients and the feed) over the round, % of one core. */
  generator_cpu_pct: number;
}

/** Figures of the delivery bench. */
export interface LiveDeliveryResult {
  stocks: number;
  connections: number;
  subscribed: number;
  failed: number;
  first_failure: string | null;
  presets: number;
  batch_interval_ms: number;
  rounds: Round[];
  latency_ms: HistogramSummary;
  /** Tick → client of the screens whose list re-runs whole (formula, score, rank templates) and of the others. */
  whole_latency_ms: HistogramSummary;
  row_latency_ms: HistogramSummary;
  /** Per-row screens: from the tick's send to the daemon's message timestamp (POST, bus, evaluation). */
  built_ms: HistogramSummary;
  /** Per-row screens: from the daemon's message timestamp to receipt (the batch interval, the send and the client). */
  send_ms: HistogramSummary;
  unattributed: number;
}

async function enterpriseUser(api: ApiClient, adminToken: string): Promise<string> {
  const email = `bench-live-${randomUUID().slice(0, 8)}@example.com`;
  const password = randomBytes(12).toString('base64url');
  await api.ok('/api/v1/auth/register', { json: { email, password } });
  const first = accessTokenOf(await api.ok('/api/v1/auth/login', { json: { email, password } }));
  const me = await api.ok<{ data: { id: string } }>('/api/v1/users/me', { token: first });
  await api.ok(`/api/v1/admin/users/${me.data.id}`, { method: 'PATCH', json: { tier: 'enterprise', rate_limit_per_hour: BENCH_USER_LIMIT }, token: adminToken });
  return accessTokenOf(await api.ok('/api/v1/auth/login', { json: { email, password } }));
}

/** Presets of one user: movers and value screens at various page sizes and markets. */
async function savePresets(api: ApiClient, token: string, user: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let k = 0; k < count; k++) {
    const i = user * count + k;
    const market = MARKET_CHOICES[i % 3];
    const query = {
      filters: { ...(market ? { market } : {}), change_percent: { min: -2 + (i % 5) }, ...(i % 2 ? { roe: { min: 5 } } : {}) },
      sort: [{ field: i % 2 ? 'change_percent' : 'trading_value', direction: 'desc' }],
      per_page: 10 + ((i * 37) % 191),
    };
    const res = await api.ok<{ data: { id: string } }>('/api/v1/screen/presets', { json: { name: `bench ${i}`, query }, token });
    ids.push(res.data.id);
  }
  return ids;
}

/** The subscribe message of screen `i` (every fourth a preset of the connection's user, the others templates). */
function subscribeMessage(i: number, presets: readonly string[]): Record<string, unknown> {
  if (i % 4 === 0 && presets.length > 0) return { type: 'subscribe', subscription_type: 'screen', targets: [`preset:${presets[(i >> 2) % presets.length]}`] };
  const templates = listTemplates();
  const t = templates[i % templates.length]!;
  const market = MARKET_CHOICES[Math.floor(i / templates.length) % 3];
  return { type: 'subscribe', subscription_type: 'screen', targets: [`template:${t.id}`], overrides: { per_page: 10 + ((i * 53) % 191), ...(market ? { market } : {}) } };
}

interface Client {
  socket: TrackedSocket;
  presets: readonly string[];
  screenIds: string[];
  /** Ids of the screens whose list re-runs whole (shared by every client). */
  whole: Set<string>;
}

/** Templates whose screens re-run whole (formula columns, scores, ranks). */
const WHOLE_TEMPLATES = new Set(
  listTemplates()
    .filter((t) => {
      const q = applyTemplateOverrides(t);
      return needsWholeList(q, expressionOf(q));
    })
    .map((t) => `template:${t.id}`),
);

/** Subscribe `client` to its screens (numbered from `first`); resolves with the failures' reasons. */
async function subscribeAll(client: Client, first: number, count: number): Promise<string[]> {
  const failures: string[] = [];
  for (let k = 0; k < count; k++) {
    client.socket.send(subscribeMessage(first + k, client.presets));
    const m = await client.socket.next((x) => (x.type === 'subscribed' && x.subscription_type === 'screen') || x.type === 'error', 30_000);
    if (m.type === 'subscribed') {
      client.screenIds.push(String(m.screen_id));
      if (WHOLE_TEMPLATES.has(String(m.source))) client.whole.add(String(m.screen_id));
    }
    else failures.push(`${String(m.code)}: ${JSON.stringify(m.details ?? m.message)}`);
  }
  return failures;
}

async function unsubscribeAll(client: Client): Promise<void> {
  if (client.screenIds.length === 0) return;
  client.socket.send({ type: 'unsubscribe', subscription_type: 'screen', targets: client.screenIds });
  await client.socket.next((x) => x.type === 'unsubscribed', 30_000);
  client.screenIds = [];
}

/** Run the delivery bench. @throws Error when the daemon or the market cannot be set up */
export async function runLiveDeliveryBench(o: LiveDeliveryOptions, env: NodeJS.ProcessEnv = process.env): Promise<LiveDeliveryResult> {
  const redis = await ensureBenchRedis(env);
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'stockscreen-bench-live-delivery-')));
  const admin = { email: 'bench-admin@example.com', password: randomBytes(12).toString('base64url') };
  const prefix = `stockscreen-bench-live:${randomUUID().slice(0, 8)}:`;
  const config = benchDaemonConfig({ dataDir, redisUrl: redis.url, prefix, admin, jwtSecret: randomBytes(48).toString('base64url'), rateLimit: false, workers: 1 });
  const child = await startChild({ role: 'daemon', config: config as Record<string, unknown> });
  const clients: Client[] = [];
  try {
    const api = createApiClient(child.urls.http!);
    const adminToken = await adminLogin(api, admin.email, admin.password);
    o.log(`daemon pid ${child.pid}${o.dataDir ? '' : `; loading the sample market (${o.market.stocks} stocks × ${o.market.days} days)`}`);
    if (!o.dataDir) await loadSampleMarket(api, adminToken, o.market, o.log);
    return await measure(o, api, adminToken, child.pid, clients);
  } finally {
    for (const c of clients) c.socket.ws.terminate();
    await child.close();
    await deletePrefix(redis.url, prefix);
    await redis.stop();
    if (!o.dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

/** Every stock's code (GET /stocks, 500 a page). */
async function allCodes(api: ApiClient, token: string): Promise<string[]> {
  const codes: string[] = [];
  for (let page = 1; ; page++) {
    const res = await api.ok<{ data: { code: string }[] }>(`/api/v1/stocks?limit=500&page=${page}`, { token });
    codes.push(...res.data.map((s) => s.code));
    if (res.data.length < 500) return codes;
  }
}

async function measure(o: LiveDeliveryOptions, api: ApiClient, adminToken: string, pid: number, clients: Client[]): Promise<LiveDeliveryResult> {
  const tokens: string[] = [];
  const presets: string[][] = [];
  for (let u = 0; u < o.users; u++) {
    tokens.push(await enterpriseUser(api, adminToken));
    presets.push(await savePresets(api, tokens[u]!, u, o.presetsPerUser));
  }
  const codes = await allCodes(api, tokens[0]!);
  const feed = startFeed(api, adminToken, await loadQuotes(api, tokens[0]!, codes));
  const latency = new Histogram();
  const wholeLatency = new Histogram();
  const rowLatency = new Histogram();
  const whole = new Set<string>();
  const built_ = new Histogram();
  const send = new Histogram();
  const counts = { updates: 0, entries: 0, exits: 0, unattributed: 0, recording: false };
  const onData = (m: WsMessage) => {
    if (m.type !== 'screen_update' || !counts.recording) return;
    const now = Date.now();
    const built = Date.parse(String(m.timestamp));
    const entered = (m.entered as { code: string }[]).map((r) => r.code);
    const exited = m.exited as string[];
    counts.updates++;
    counts.entries += entered.length;
    counts.exits += exited.length;
    const cause = feed.lastSentBefore([...entered, ...exited], built);
    if (cause === null) counts.unattributed++;
    else {
      latency.record((now - cause) * 1000);
      if (whole.has(String(m.screen_id))) wholeLatency.record((now - cause) * 1000);
      else rowLatency.record((now - cause) * 1000), built_.record((built - cause) * 1000), send.record((now - built) * 1000);
    }
  };
  const url = `${wsBase(api.base)}/v1/ws`;
  for (let c = 0; c < o.connections; c++) {
    const u = c % o.users;
    clients.push({ socket: await openTracked(`${url}?token=${tokens[u]}`, 30_000, { onData }), presets: presets[u]!, screenIds: [], whole });
  }
  const perClient = (c: number) => Math.floor(o.screens / o.connections) + (c < o.screens % o.connections ? 1 : 0);
  const firsts = clients.map((_, c) => clients.slice(0, c).reduce((n, _x, k) => n + perClient(k), 0));
  const subscribe = async () => (await Promise.all(clients.map((cl, c) => subscribeAll(cl, firsts[c]!, perClient(c))))).flat();
  o.log(`${o.connections} connections; subscribing ${o.screens} live screens`);
  const failures = await subscribe();
  const subscribed = clients.reduce((n, c) => n + c.screenIds.length, 0);
  const rounds: Round[] = [];
  try {
    await feed.run(1); // warm-up
    for (let r = 0; r < o.rounds; r++) {
      if (r > 0) await subscribe();
      rounds.push(await round(o, feed, pid, counts, true));
      await Promise.all(clients.map(unsubscribeAll));
      rounds.push(await round(o, feed, pid, counts, false));
    }
  } finally {
    feed.stop();
  }
  return {
    stocks: codes.length, connections: clients.length, subscribed, failed: failures.length, first_failure: failures[0] ?? null,
    presets: presets.flat().length, batch_interval_ms: 30, rounds,
    latency_ms: latency.summary(1000), whole_latency_ms: wholeLatency.summary(1000), row_latency_ms: rowLatency.summary(1000), built_ms: built_.summary(1000), send_ms: send.summary(1000), unattributed: counts.unattributed,
  };
}

async function round(o: LiveDeliveryOptions, feed: ReturnType<typeof startFeed>, pid: number, counts: { updates: number; entries: number; exits: number; recording: boolean }, screens: boolean): Promise<Round> {
  o.log(`round ${screens ? 'with' : 'without'} live screens (${o.seconds} s)`);
  const before = { ...counts };
  const cpu0 = processCpuMs(pid);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  counts.recording = screens;
  const sent = await feed.run(o.seconds);
  counts.recording = false;
  const cpu1 = processCpuMs(pid);
  const own = process.cpuUsage(own0);
  return {
    screens, seconds: o.seconds, ticks: sent.accepted, rejected: sent.rejected,
    daemon_cpu_us_per_tick: cpu0 === null || cpu1 === null || sent.accepted === 0 ? null : ((cpu1 - cpu0) * 1000) / sent.accepted,
    updates: counts.updates - before.updates, entries: counts.entries - before.entries, exits: counts.exits - before.exits,
    generator_cpu_pct: (own.user + own.system) / 10 / (performance.now() - t0),
  };
}

const avg = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
const r1 = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);

/** Report rows of the delivery bench. */
export function liveDeliveryRows(r: LiveDeliveryResult): ReportRow[] {
  const w = r.rounds.filter((x) => x.screens);
  const wo = r.rounds.filter((x) => !x.screens);
  const seconds = w.reduce((n, x) => n + x.seconds, 0);
  const per = (rs: Round[]) => rs.map((x) => r1(x.daemon_cpu_us_per_tick)).join(', ');
  return [
    makeRow(SCENARIO, 'live screens subscribed', r.subscribed, '', null, { note: `${r.connections} connections, ${r.presets} presets saved; ${r.failed} refused${r.first_failure ? ` (first: ${r.first_failure})` : ''}` }),
    makeRow(SCENARIO, 'ticks/s offered and accepted', r1(avg(r.rounds.map((x) => x.ticks / x.seconds))), 'ticks/s', null, { note: `one per stock per second over ${r.stocks} stocks; ${r.rounds.reduce((n, x) => n + x.rejected, 0)} rejected` }),
    makeRow(SCENARIO, 'screen_update messages/s delivered', r1(w.reduce((n, x) => n + x.updates, 0) / Math.max(1, seconds)), 'msg/s', null, { note: `${w.reduce((n, x) => n + x.entries, 0)} entries, ${w.reduce((n, x) => n + x.exits, 0)} exits over ${seconds} s` }),
    makeRow(SCENARIO, 'tick → client p50', r.latency_ms.p50, 'ms'),
    makeRow(SCENARIO, 'tick → client p99', r.latency_ms.p99, 'ms', null, { note: `issue target: ≤ 50 ms + the batch interval (${r.batch_interval_ms} ms); ${r.latency_ms.count} updates, ${r.unattributed} not attributed` }),
    makeRow(SCENARIO, 'tick → client p99, per-row screens', r.row_latency_ms.p99, 'ms', null, { note: `p50 ${r.row_latency_ms.p50} ms; ${r.row_latency_ms.count} updates` }),
    makeRow(SCENARIO, 'tick → client p99, whole-list screens', r.whole_latency_ms.p99, 'ms', null, { note: `p50 ${r.whole_latency_ms.p50} ms; ${r.whole_latency_ms.count} updates; an upper bound: a rank moves with other stocks' ticks, so the stocks an update names may have ticked long before its cause (by design the update waits ≤ one re-run period + one re-run)` }),
    makeRow(SCENARIO, 'tick → message built p50 / p99 (per-row screens)', r.built_ms.p50, 'ms', null, { note: `p99 ${r.built_ms.p99} ms: the POST, the bus, the evaluation` }),
    makeRow(SCENARIO, 'message built → client p50 / p99 (per-row screens)', r.send_ms.p50, 'ms', null, { note: `p99 ${r.send_ms.p99} ms: the WebSocket batch interval, the send and the client` }),
    makeRow(SCENARIO, 'generator CPU with / without live screens', r1(avg(w.map((x) => x.generator_cpu_pct))), '%', null, { note: `${r1(avg(wo.map((x) => x.generator_cpu_pct)))} % without; the ${r.connections} clients and the feed share the machine with the daemon` }),
    makeRow(SCENARIO, 'daemon CPU per tick with live screens', r1(avg(w.map((x) => x.daemon_cpu_us_per_tick))), 'µs', null, { note: `rounds ${per(w)}; ingest, bus, evaluation and delivery` }),
    makeRow(SCENARIO, 'daemon CPU per tick without live screens', r1(avg(wo.map((x) => x.daemon_cpu_us_per_tick))), 'µs', null, { note: `rounds ${per(wo)}, interleaved` }),
  ];
}
