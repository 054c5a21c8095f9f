/**
 * `npm run bench:abuse` (node dist/loadtest/bench-abuse.js): the five attacks of a hostile free
 * or anonymous user at full size, each against a freshly spawned `stockscreend` on the sample
 * market, measuring what everyone else sees while it runs: `/health` p99, another (exempted)
 * user's simple screen p99 (a new query each time: never a cache hit), the daemon's peak RSS and
 * CPU from /proc, and every 5xx. Targets: /health p99 < 100 ms, other screen p99 < 250 ms,
 * RSS < 1 GB, no 5xx.
 *
 * The probes run in a process of their own (bench/abuse-probe.ts): the attack clients here parse
 * megabytes of answers and would delay the probes' timers. Beside the daemon's /health they probe
 * a bare node:http server (another process, started once) in the same seconds: its p99 is the
 * floor this shared machine gives at that moment, printed next to each figure. From the daemon's
 * /metrics (read as the admin before and after each attack) come its event-loop delay p99 and
 * max over the attack, its full GCs, and what its memory budget holds at the end.
 *
 * 1. live: 10 anonymous WebSocket connections, each subscribing a distinct 40 KB live screen of
 *    formula columns and ranks (refused → the 600-byte chained one, c00…c13, each `c+c+c`;
 *    refused → the value-composite template, a whole list too), then unsubscribing and
 *    subscribing it again in a loop (each subscribe and close read members); and a pro account
 *    holding 20 distinct in-budget screens of chained columns and ranks by sector on one
 *    connection (20 whole lists re-run as the simulator ticks).
 * 2. chain: 576-byte screens of columns each using the previous one three times, 4 loops, and
 *    5 parallel CSV exports of such a query.
 * 3. alerts: 10 `screen_enter` alerts on 10 presets with heavy columns and ranks, no client
 *    (refused → the heaviest preset the tier accepts), then one live screen on the first preset
 *    (sharing its list with the alert); the same for a pro account with 20 presets and alerts.
 * 4. as-of, as the pro account (a free one is refused at parse: 104 history fields and 52,000
 *    cells are over its budget): screens of every field, per_page 500, a new as_of each time
 *    (2 loops), two weekly backtests of that query, and the other user's 10-date backtest: how
 *    long it waits.
 * 5. refused: 4 loops of a 40 KB body with an unknown sort field, then 10 valid heavy screens at
 *    once; X-RateLimit-Remaining before and after.
 *
 * 0. idle: no attack, the probes alone, so each figure can be read against what this (shared)
 *    machine gives at that moment.
 *
 * BENCH_ABUSE_BUILDS: `name=dir,…` repository roots to run (each with bin/ and a built dist/;
 * default this one), so a build of main and this branch are measured in the same run, attack by
 * attack, interleaved. BENCH_ABUSE_SECONDS (30), BENCH_ABUSE_ATTACKS (0,1,2,3,4,5),
 * BENCH_ABUSE_STOCKS (2,700), BENCH_ABUSE_DAYS (500), REDIS_URL, BENCH_ABUSE_NODE_ARGS (node flags of
 * the daemons, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), BENCH_ABUSE_DAEMON_LOG (a file that gets
 * every line the daemons print, e.g. with `--trace-gc`), BENCH_ABUSE_PROBE_TRACE (a file that gets
 * every probe's start and latency, also on the clock of a daemon's `--cpu-prof` profile, to find
 * what a slow answer waited for: see bench/abuse-probe.ts). Loopback only; every loop is
 * bounded by the attack's duration; a daemon that ignores SIGTERM is killed after 15 s.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import type { ProbeResult, ProbeStart } from './bench/abuse-probe.js';
import { startChild, type BenchChild } from './bench/children.js';
import { runMarketBench } from './bench/market-load.js';
import { packageRoot } from './bench/paths.js';
import { deletePrefix } from './bench/redis.js';
import { processCpuMs } from './proc-cpu.js';
import { startDaemon } from './bench/spawned-daemon.js';

const ROOT = packageRoot();
const SECONDS = Number(process.env.BENCH_ABUSE_SECONDS ?? 30);
const ATTACKS = (process.env.BENCH_ABUSE_ATTACKS ?? '0,1,2,3,4,5').split(',').map(Number);
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUILDS = (process.env.BENCH_ABUSE_BUILDS ?? `branch=${ROOT}`).split(',').map((b) => {
  const [name, dir] = b.split('=');
  return { name: name!, dir: resolve(dir ?? ROOT) };
});
const PROBE_TIMEOUT_MS = 5000;

type Json = Record<string, any>;

/**
 * c00…c(n-1), each using the previous `uses` times; a distinct c00 per seed (no cache, no memo).
 * `base` per (a price-dependent field): a live screen of it is re-run as the market ticks.
 */
function chain(n: number, seed: number, uses = 3, base = 'roe'): Record<string, string> {
  const columns: Record<string, string> = { c00: `${base} + ${seed}` };
  for (let i = 1; i < n; i++) {
    const p = `c${String(i - 1).padStart(2, '0')}`;
    columns[`c${String(i).padStart(2, '0')}`] = Array(uses).fill(p).join(' + ');
  }
  return columns;
}

/** `n` columns of `chars` characters of arithmetic, each with one pct_rank: heavy formula columns and ranks. */
function heavy(n: number, chars: number, seed: number): Record<string, string> {
  const fields = ['roe', 'per', 'pbr', 'roa', 'psr', 'debt_ratio'];
  const columns: Record<string, string> = {};
  for (let k = 0; k < n; k++) {
    let body = `pct_rank(roe * ${seed + k} + per)`;
    for (let i = 0; body.length < chars - 40; i++) body += ` + ${fields[i % fields.length]} * ${(i % 9) + 1}.${seed % 10}`;
    columns[`h${k}`] = body;
  }
  return columns;
}

/** The heaviest screen of columns and ranks a free budget accepts (about 1,400 nodes, 12 ranks); on per: re-run as the market ticks. */
function heaviestFree(seed: number, base = 'roe'): Json {
  return { columns: { ...chain(18, seed, 3, base), r: Array.from({ length: 12 }, (_, i) => `pct_rank(c17 * ${i + 1}) by sector`).join(' + ') }, expression: 'r > 10', sort: 'r:desc', per_page: 50 };
}

const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** One HTTP call that never throws: status 0 for a timeout or a refused connection. */
async function call(url: string, path: string, init: { method?: string; token?: string; json?: unknown; raw?: string; timeoutMs?: number } = {}): Promise<{ status: number; ms: number; body: Json; headers: Headers | null }> {
  const started = performance.now();
  try {
    const headers: Record<string, string> = {};
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.json !== undefined || init.raw !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + path, {
      method: init.method ?? 'GET', headers, body: init.raw ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
      signal: AbortSignal.timeout(init.timeoutMs ?? 600_000),
    });
    const text = await res.text();
    let body: Json = {};
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = { text: text.slice(0, 200) };
    }
    return { status: res.status, ms: performance.now() - started, body, headers: res.headers };
  } catch {
    return { status: 0, ms: performance.now() - started, body: {}, headers: null };
  }
}

interface Context {
  url: string;
  attacker: string;
  attackerId: string;
  /** A pro account of the attacker's (more live screens and alerts, bigger budgets). */
  pro: string;
  other: string;
  until: number;
  statuses: Map<number, number>;
  notes: string[];
}

const count = (ctx: Context, status: number) => ctx.statuses.set(status, (ctx.statuses.get(status) ?? 0) + 1);
const running = (ctx: Context) => Date.now() < ctx.until;

async function login(url: string, email: string, password: string): Promise<{ token: string; id: string }> {
  await call(url, '/api/v1/auth/register', { method: 'POST', json: { email, password } });
  const res = await call(url, '/api/v1/auth/login', { method: 'POST', json: { email, password } });
  const token = (res.body.data?.access_token ?? res.body.access_token) as string;
  const me = await call(url, '/api/v1/users/me', { token });
  return { token, id: me.body.data.id as string };
}

/** A WebSocket client of the bench: open, and subscribe/unsubscribe screens awaiting their answers. */
async function screenClient(ctx: Context, token?: string) {
  const ws = new WebSocket(`${ctx.url.replace('http', 'ws')}/v1/ws${token ? `?token=${token}` : ''}`);
  ws.on('error', () => undefined);
  await new Promise<void>((r) => {
    ws.once('open', () => r());
    ws.once('close', () => r());
  });
  /** Send `message`; resolves with the first answer of one of `types` (or 'timeout' after 60 s). */
  const ask = (message: Json, types: string[]) => new Promise<Json>((done) => {
    if (ws.readyState !== WebSocket.OPEN) return done({ type: 'closed' });
    const timer = setTimeout(() => done({ type: 'timeout' }), 60_000);
    const onMessage = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data)) as Json;
      const all = m.type === 'batch' ? (m.messages as Json[]) : [m];
      const hit = all.find((x) => types.includes(x.type as string));
      if (!hit) return;
      clearTimeout(timer);
      ws.off('message', onMessage);
      done(hit);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify(message));
  });
  return {
    ws,
    subscribe: (target: Json) => ask({ type: 'subscribe', subscription_type: 'screen', ...target }, ['subscribed', 'error']),
    unsubscribe: (id: string) => ask({ type: 'unsubscribe', subscription_type: 'screen', targets: [id] }, ['unsubscribed', 'error']),
  };
}

/** Attack 1: anonymous live screens (then churned), and a pro account's 20 whole-list live screens. */
async function attackLive(ctx: Context): Promise<void> {
  const sockets: WebSocket[] = [];
  let heavyOk = 0;
  let fallbackOk = 0;
  let templateOk = 0;
  let refused = 0;
  let churned = 0;
  const reasons = new Set<string>();
  const anonymous = Array.from({ length: 10 }, async (_, i) => {
    const c = await screenClient(ctx);
    sockets.push(c.ws);
    let answer = await c.subscribe({ query: { columns: heavy(20, 1990, i), expression: 'pct_rank(h19) > 50' } });
    if (answer.type === 'subscribed') heavyOk++;
    else {
      refused++;
      reasons.add(String(answer.details?.reason ?? answer.type));
      answer = await c.subscribe({ query: { columns: chain(14, i, 3, 'per'), expression: 'pct_rank(c13) > 50' } });
      if (answer.type === 'subscribed') fallbackOk++;
      else {
        reasons.add(String(answer.details?.reason ?? answer.type));
        answer = await c.subscribe({ targets: ['template:value-composite'] });
        if (answer.type === 'subscribed') templateOk++;
      }
    }
    // Every close and every subscribe reads members: in a loop, while the simulator ticks.
    let id = answer.screen_id as string | undefined;
    const again = answer.type === 'subscribed' ? (answer.source === 'query' ? { query: { columns: chain(14, i, 3, 'per'), expression: 'pct_rank(c13) > 50' } } : { targets: [answer.source] }) : null;
    while (running(ctx) && id && again) {
      await c.unsubscribe(id);
      const next = await c.subscribe(again);
      id = next.screen_id as string | undefined;
      if (next.type === 'subscribed') churned++;
    }
  });
  // A pro account: 20 distinct screens of chained columns and 12 ranks by sector, on one connection.
  let proOk = 0;
  let proRefused = 0;
  const proScreens = (async () => {
    const c = await screenClient(ctx, ctx.pro);
    sockets.push(c.ws);
    for (let k = 0; k < 20 && running(ctx); k++) {
      const answer = await c.subscribe({ query: heaviestFree(1000 + k, 'per') });
      if (answer.type === 'subscribed') proOk++;
      else proRefused++;
    }
  })();
  await Promise.all([...anonymous, proScreens]);
  ctx.notes.push(
    `anonymous: 40 KB subscribed ${heavyOk}, refused ${refused}; 600-byte chained subscribed ${fallbackOk}; template subscribed ${templateOk}` +
      ` (refusals: ${[...reasons].join(', ')}); ${churned} unsubscribe+subscribe rounds answered; pro: ${proOk} whole-list screens subscribed, ${proRefused} refused`,
  );
  while (running(ctx)) await new Promise((r) => setTimeout(r, 250));
  for (const ws of sockets) ws.terminate();
}

/** Attack 2: chained columns, JSON and CSV. */
async function attackChain(ctx: Context): Promise<void> {
  let seed = 0;
  const body = (s: number) => ({ columns: chain(20, s, 3), expression: 'pct_rank(c19) > 50', sort: 'c19:desc' });
  ctx.notes.push(`body ${JSON.stringify(body(1)).length} bytes`);
  const csv = Array.from({ length: 5 }, async () => {
    const r = await call(ctx.url, '/api/v1/screen?format=csv', { method: 'POST', token: ctx.attacker, json: body(100_000 + seed++) });
    count(ctx, r.status);
  });
  const loops = Array.from({ length: 4 }, async () => {
    while (running(ctx)) {
      const r = await call(ctx.url, '/api/v1/screen', { method: 'POST', token: ctx.attacker, json: body(seed++) });
      count(ctx, r.status);
    }
  });
  await Promise.all([...csv, ...loops]);
}

/** Attack 3: screen alerts on heavy presets, nobody watching (then one live screen on the first), as a free and a pro account. */
async function attackAlerts(ctx: Context): Promise<void> {
  const sockets: WebSocket[] = [];
  const one = async (token: string, n: number, seed: number) => {
    let heavyPresets = 0;
    let fallback = 0;
    let alerts = 0;
    let first: string | undefined;
    for (let i = 0; i < n && running(ctx); i++) {
      let res = await call(ctx.url, '/api/v1/screen/presets', { method: 'POST', token, json: { name: `h${seed + i}`, query: { columns: heavy(8, 1500, seed + i), expression: 'pct_rank(h7) > 50' } } });
      if (res.status === 201) heavyPresets++;
      else {
        res = await call(ctx.url, '/api/v1/screen/presets', { method: 'POST', token, json: { name: `f${seed + i}`, query: heaviestFree(seed + i, 'per') } });
        if (res.status === 201) fallback++;
      }
      count(ctx, res.status);
      if (res.status !== 201) continue;
      first ??= res.body.data.id as string;
      // The default membership and dwell (the attack is about the re-runs, not the firings).
      const a = await call(ctx.url, '/api/v1/alerts', { method: 'POST', token, json: { alert_type: 'screen_enter', preset_id: res.body.data.id, recurring: true } });
      count(ctx, a.status);
      if (a.status === 201) alerts++;
    }
    let live = 'no live screen';
    if (first) {
      const c = await screenClient(ctx, token);
      sockets.push(c.ws);
      const answer = await c.subscribe({ targets: [`preset:${first}`] });
      live = answer.type === 'subscribed' ? 'a live screen on the first preset' : `live screen ${answer.details?.reason ?? answer.type}`;
    }
    return `heavy presets saved ${heavyPresets}, in-budget fallbacks ${fallback}, screen alerts ${alerts}, ${live}`;
  };
  const [free, pro] = await Promise.all([one(ctx.attacker, 10, 0), one(ctx.pro, 20, 100)]);
  ctx.notes.push(`free: ${free}; pro: ${pro}`);
  while (running(ctx)) await new Promise((r) => setTimeout(r, 250));
  for (const ws of sockets) ws.terminate();
}

/** Attack 4: as-of screens of every field, heavy backtests, and the other user's short backtest. */
async function attackAsOf(ctx: Context, fields: string[]): Promise<void> {
  const query = { fields, per_page: 500 };
  let day = 0;
  const date = () => {
    const d = new Date(Date.UTC(2025, 3, 1) + (day++ % 300) * 86_400_000);
    return d.toISOString().slice(0, 10);
  };
  // Asked at once, not awaited before the screens: planning reads the market history first.
  let attackers = 'not answered';
  void Promise.all(Array.from({ length: 2 }, async () => {
    const r = await call(ctx.url, '/api/v1/screen/backtest', { method: 'POST', token: ctx.pro, json: { query, from: '2024-06-03', rebalance: 'weekly', top: 20 } });
    count(ctx, r.status);
    return `${r.status}${r.body.error ? ` ${r.body.error.details?.limit ?? r.body.error.code}` : ''}`;
  })).then((b) => (attackers = b.join(', ')));
  const refusals = new Set<string>();
  const loops = Array.from({ length: 2 }, async () => {
    while (running(ctx)) {
      const r = await call(ctx.url, '/api/v1/screen', { method: 'POST', token: ctx.pro, json: { ...query, as_of: date() } });
      count(ctx, r.status);
      if (r.status >= 400 && refusals.size < 3) refusals.add(`${r.status} ${r.body.error?.code ?? ''} ${JSON.stringify(r.body.error?.details ?? {}).slice(0, 120)}`);
    }
  });
  // The other user's 10-date backtest, asked a moment after the attacker's, followed until the
  // attack's end plus as long again (a run waiting behind the attacker's shows as still queued).
  const short = (async () => {
    await new Promise((r) => setTimeout(r, 2000));
    const asked = Date.now();
    const deadline = ctx.until + SECONDS * 1000;
    const r = await call(ctx.url, '/api/v1/screen/backtest', { method: 'POST', token: ctx.other, json: { template: 'value', from: '2025-12-01', rebalance: 'weekly', top: 10 } });
    if (r.status !== 202 && r.status !== 200) return `not started (${r.status})`;
    let status = r.body.data.status as string;
    while (status !== 'completed' && status !== 'failed' && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 500));
      status = (await call(ctx.url, `/api/v1/screen/backtests/${r.body.data.id}`, { token: ctx.other, timeoutMs: PROBE_TIMEOUT_MS })).body.data?.status ?? status;
    }
    return status === 'completed' ? `done in ${((Date.now() - asked) / 1000).toFixed(1)} s` : `still ${status} after ${((Date.now() - asked) / 1000).toFixed(0)} s`;
  })();
  await Promise.all(loops);
  const waited = await short;
  ctx.notes.push(`attacker's backtests: ${attackers}; as-of screens refused: ${[...refusals].join(' / ') || 'none'}; other user's 10-date backtest: ${waited}`);
}

/** Attack 5: refused 40 KB bodies, then a burst of valid heavy screens. */
async function attackRefused(ctx: Context): Promise<void> {
  const junk = JSON.stringify({ sort: 'no_such_field:desc', codes: Array.from({ length: 4500 }, (_, i) => String(100000 + i)) });
  let first: string | null = null;
  let last: string | null = null;
  const half = Date.now() + (ctx.until - Date.now()) / 2;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (Date.now() < half) {
      const r = await call(ctx.url, '/api/v1/screen', { method: 'POST', token: ctx.attacker, raw: junk });
      count(ctx, r.status);
      first ??= r.headers?.get('x-ratelimit-remaining') ?? null;
      last = r.headers?.get('x-ratelimit-remaining') ?? last;
    }
  }));
  const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => call(ctx.url, '/api/v1/screen', { method: 'POST', token: ctx.attacker, json: heaviestFree(500 + i) })));
  for (const r of burst) count(ctx, r.status);
  ctx.notes.push(`body ${junk.length} bytes; X-RateLimit-Remaining ${first} → ${last}; burst statuses ${burst.map((r) => r.status).join(' ')}`);
  while (running(ctx)) await new Promise((r) => setTimeout(r, 250));
}

/** Run the probes (abuse-probe.ts) in a process of their own; resolves with their latencies. */
function probe(start: ProbeStart): Promise<ProbeResult> {
  const child = fork(new URL('./bench/abuse-probe.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: ProbeResult) => resolve(m));
    child.once('exit', (code) => reject(new Error(`the probe process exited (code ${code}) before answering`)));
    child.send(start);
  });
}

/** The daemon's Prometheus figures (`name{labels}` → value), read as the admin; empty when unreadable. */
async function scrapeMetrics(url: string, token: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  try {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    for (const line of (await res.text()).split('\n')) {
      const m = /^(\S+) (\S+)$/.exec(line);
      if (m && !line.startsWith('#')) out.set(m[1]!, Number(m[2]));
    }
  } catch {
    // No figures: the report prints NaN for them.
  }
  return out;
}

interface Row {
  attack: number;
  build: string;
  health_p99: number;
  health_timeouts: number;
  /** A bare node:http server's p99, probed in the same seconds: the machine's floor. */
  bare_p99: number;
  screen_p99: number;
  screen_timeouts: number;
  rss_mb: number;
  cpu_pct: number;
  fivexx: number;
  statuses: string;
  sigkill: boolean;
  notes: string;
}

async function runAttack(attack: number, build: { name: string; dir: string }, base: string, fields: string[], bare: BenchChild): Promise<Row> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-abuse-'));
  await cp(base, dataDir, { recursive: true });
  const prefix = `bench-abuse:${attack}:${build.name}:${process.pid}:`;
  const daemon = await startDaemon(build.dir, dataDir, { redisUrl: REDIS, prefix, rateLimit: true, nodeArgs: process.env.BENCH_ABUSE_NODE_ARGS?.split(' ').filter(Boolean) ?? [], logFile: process.env.BENCH_ABUSE_DAEMON_LOG });
  try {
    const admin = await call(daemon.url, '/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const adminToken = (admin.body.data?.access_token ?? admin.body.access_token) as string;
    const attacker = await login(daemon.url, `attacker-${attack}@example.com`, 'correct horse battery');
    const other = await login(daemon.url, `other-${attack}@example.com`, 'correct horse battery');
    const pro = await login(daemon.url, `attacker-pro-${attack}@example.com`, 'correct horse battery');
    await call(daemon.url, `/api/v1/admin/users/${pro.id}`, { method: 'PATCH', token: adminToken, json: { tier: 'pro' } });
    // The tier is read at login: log in again as pro.
    const proToken = (await login(daemon.url, `attacker-pro-${attack}@example.com`, 'correct horse battery')).token;
    // The other user is exempt from rate limits: its probes measure latency, not quota.
    await call(daemon.url, `/api/v1/admin/users/${other.id}/loadtest-exemption`, { method: 'PUT', token: adminToken, json: { duration_s: 3600 } });
    const ctx: Context = { url: daemon.url, attacker: attacker.token, attackerId: attacker.id, pro: proToken, other: other.token, until: Date.now() + SECONDS * 1000, statuses: new Map(), notes: [] };
    const metrics0 = await scrapeMetrics(daemon.url, adminToken);
    let rss = rssMb(daemon.pid);
    const cpu0 = processCpuMs(daemon.pid) ?? 0;
    const t0 = Date.now();
    // The probes run in a process of their own: the attack clients here parse megabytes of answers.
    const probes = probe({ daemonUrl: daemon.url, bareUrl: bare.urls.http!, token: other.token, until: ctx.until, timeoutMs: PROBE_TIMEOUT_MS });
    // RSS until the attack is over (attack 4 goes on after ctx.until, following a backtest).
    let attacking = true;
    const monitors = [
      (async () => {
        while (attacking) {
          rss = Math.max(rss, rssMb(daemon.pid));
          await new Promise((res) => setTimeout(res, 250));
        }
      })(),
    ];
    const attacks: Record<number, () => Promise<void>> = {
      // 0: no attack, the probes alone: the floor this machine gives right now (it is shared).
      0: async () => {
        while (running(ctx)) await new Promise((r) => setTimeout(r, 250));
      },
      1: () => attackLive(ctx), 2: () => attackChain(ctx), 3: () => attackAlerts(ctx), 4: () => attackAsOf(ctx, fields), 5: () => attackRefused(ctx),
    };
    // An attacker's request may outlive the attack (a 4-minute as-of screen): the attack ends on time regardless.
    // (Attack 4 follows the other user's backtest for one more attack length.)
    await Promise.race([attacks[attack]!(), new Promise((r) => setTimeout(r, SECONDS * 1000 * (attack === 4 ? 2 : 1) + 5000))]);
    attacking = false;
    await Promise.all(monitors);
    const p = await probes;
    const cpu = ((processCpuMs(daemon.pid) ?? cpu0) - cpu0) / (Date.now() - t0) * 100;
    const metrics1 = await scrapeMetrics(daemon.url, adminToken);
    const fivexx = [...ctx.statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0) + p.fivexx;
    const gc = (m: Map<string, number>, kind: string, what: 'sum' | 'count') => m.get(`stockscreen_nodejs_gc_duration_seconds_${what}{kind="${kind}"}`) ?? 0;
    const budget = [...metrics1].filter(([k]) => k.startsWith('stockscreen_memory_budget_bytes{')).map(([k, v]) => `${/holder="([^"]+)"/.exec(k)?.[1]} ${(v / 1048576).toFixed(0)}`);
    ctx.notes.push(
      `daemon loop delay p99 ${((metrics1.get('stockscreen_nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000).toFixed(0)} ms, max ${((metrics1.get('stockscreen_nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000).toFixed(0)} ms; ` +
        `major GC ${(gc(metrics1, 'major', 'count') - gc(metrics0, 'major', 'count')).toFixed(0)}× ${((gc(metrics1, 'major', 'sum') - gc(metrics0, 'major', 'sum')) * 1000).toFixed(0)} ms` +
        `; at the end: heap used ${((metrics1.get('stockscreen_nodejs_heap_size_used_bytes') ?? Number.NaN) / 1048576).toFixed(0)} MB, external ${((metrics1.get('stockscreen_nodejs_external_memory_bytes') ?? Number.NaN) / 1048576).toFixed(0)} MB` +
        (budget.length > 0 ? `, memory budget MB ${budget.join(', ')}` : ''),
    );
    return {
      attack, build: build.name, health_p99: percentile(p.health, 99), health_timeouts: p.healthTimeouts, screen_p99: percentile(p.screen, 99), screen_timeouts: p.screenTimeouts,
      bare_p99: percentile(p.bare, 99), rss_mb: rss, cpu_pct: cpu, fivexx, statuses: [...ctx.statuses].sort(([a], [b]) => a - b).map(([s, c]) => `${s}×${c}`).join(' '),
      sigkill: await daemon.stop(), notes: ctx.notes.join('; '),
    };
  } finally {
    await daemon.stop();
    await deletePrefix(REDIS, prefix).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const stocks = Number(process.env.BENCH_ABUSE_STOCKS ?? 2700);
const days = Number(process.env.BENCH_ABUSE_DAYS ?? 500);
const base = await mkdtemp(join(tmpdir(), 'stockscreen-abuse-base-'));
let bare: BenchChild | undefined;
try {
  process.stderr.write(`loading the sample market (${stocks} stocks × ${days} days) into ${base}\n`);
  await runMarketBench({ stocks, days, seed: 42, sampleDataDir: base });
  bare = await startChild({ role: 'baseline', options: { messagesPerClientPerSecond: 1 } });
  const { INDICATOR_IDS } = await import('../daemon/indicators/registry.js');
  const rows: Row[] = [];
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  for (const attack of ATTACKS) {
    for (const build of BUILDS) {
      process.stderr.write(`attack ${attack} on ${build.name} (${SECONDS} s); load average ${load()}\n`);
      const row = await runAttack(attack, build, base, [...INDICATOR_IDS], bare);
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
  }
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  process.stdout.write('attack build    /health p99 (timeouts)  bare p99  screen p99 (timeouts)  RSS MB  CPU %  5xx  verdict  attacker statuses | notes\n');
  for (const r of rows) {
    const ok = r.health_p99 < 100 && r.screen_p99 < 250 && r.rss_mb < 1024 && r.fivexx === 0 && r.health_timeouts === 0 && r.screen_timeouts === 0;
    process.stdout.write(
      `${String(r.attack).padEnd(6)} ${r.build.padEnd(8)} ${`${r.health_p99.toFixed(0)} ms (${r.health_timeouts})`.padEnd(23)} ${`${r.bare_p99.toFixed(0)} ms`.padEnd(9)} ${`${r.screen_p99.toFixed(0)} ms (${r.screen_timeouts})`.padEnd(22)} ` +
      `${r.rss_mb.toFixed(0).padStart(6)} ${r.cpu_pct.toFixed(0).padStart(6)} ${String(r.fivexx).padStart(4)}  ${verdict(ok).padEnd(7)}  ${r.statuses}${r.sigkill ? ' SIGKILL needed' : ''} | ${r.notes}\n`,
    );
  }
  process.stdout.write(`load average (1, 5, 15 min) after: ${load()}\n`);
} finally {
  await bare?.close();
  await rm(base, { recursive: true, force: true });
}
