/**
 * `npm run bench:load-writes` (node dist/loadtest/bench-load-writes.js): how long writes wait
 * while a full market loads, and how long the load takes meanwhile.
 *
 * One daemon (a child process: sqlite in a temp dir, one job worker, rate limits off) holds a
 * small sample market; then the full sample market (`BENCH_LOAD_STOCKS`, default every listed
 * issue, × `BENCH_LOAD_DAYS`, default 500 days) replaces it. From the load's start to its end,
 * `BENCH_LOAD_CLIENTS` (4) users each loop over login, token refresh, preset save and alert
 * create (a pause of `BENCH_LOAD_PAUSE_MS`, 100 ms, after each), every request bounded by 150 s.
 * Reported: each operation's count, p50, p99, max, and answers other than 2xx (a 503 is the
 * bounded wait refusing, "no answer" a request that got none within 150 s), then the load's wall
 * time (the job's start to its end, as the jobs API reports it). `BENCH_LOAD_CLIENTS=0` times the
 * load alone.
 *
 * `BENCH_DAEMON_ROOT` runs another checkout's build (its `bin/stockscreend`, e.g. main's in a
 * temporary worktree) with the same workload: the before/after comparison. Accounts hash their
 * passwords with scrypt N=2^12 (`password_scrypt_log_n`), so a login's time is the request's
 * and the database's, not the hash's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from './bench/paths.js';
import { runBenchProgram } from './bench/program.js';
import { deletePrefix, ensureBenchRedis } from './bench/redis.js';

const ADMIN = { email: 'bench-admin@example.com', password: 'bench-password-1' };
const num = (v: string | undefined, d: number) => (v && Number(v) > 0 ? Number(v) : d);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const OPS = ['login', 'refresh', 'preset save', 'alert create'] as const;
type Op = (typeof OPS)[number];

interface Answer { status: number; body: any; ms: number }

/** Start `root`'s daemon with `config`; resolves with its URL once it listens. */
async function startDaemon(root: string, config: object, dir: string): Promise<{ url: string; child: ChildProcess }> {
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify(config));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STOCKSCREEN_|REDIS_URL$|DATABASE_URL$)/.test(k)));
  const child = spawn(process.execPath, [join(root, 'bin/stockscreend'), '--config', file], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('daemon not listening after 60 s')), 60_000);
    child.once('exit', (code) => fail(new Error(`daemon exited during start (code ${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { url?: string; msg?: string };
        if (typeof entry.url === 'string' && entry.msg?.includes('listening')) (clearTimeout(timer), ok(entry.url));
      } catch {
        // not a log line
      }
    });
  });
  return { url, child };
}

await runBenchProgram(async (io, env) => {
  const root = resolve(env.BENCH_DAEMON_ROOT ?? packageRoot());
  // 0 writers: the load alone (its wall time without the writers' work competing for the CPU).
  const CLIENTS = env.BENCH_LOAD_CLIENTS === '0' ? 0 : num(env.BENCH_LOAD_CLIENTS, 4);
  const PAUSE_MS = num(env.BENCH_LOAD_PAUSE_MS, 100);
  const DAYS = num(env.BENCH_LOAD_DAYS, 500);
  const STOCKS = env.BENCH_LOAD_STOCKS ? Number(env.BENCH_LOAD_STOCKS) : undefined;
  const redis = await ensureBenchRedis(env);
  const prefix = `bench-load-writes:${randomUUID().slice(0, 8)}:`;
  const dataDir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-load-writes-'));
  io.err(`daemon from ${root}\n`);
  const { url, child } = await startDaemon(root, {
    host: '127.0.0.1', port: 0, data_dir: dataDir, redis_url: redis.url, redis_prefix: prefix, log_level: 'info', log_format: 'json',
    jwt_secret: 'bench-secret-bench-secret-bench-secret-00', admin_email: ADMIN.email, admin_password: ADMIN.password, password_scrypt_log_n: 12,
    workers: 1, rate_limit: { enabled: false }, alert_caps: { free: null },
  }, dataDir);
  const call = async (method: string, path: string, token?: string, json?: unknown): Promise<Answer> => {
    const t0 = performance.now();
    try {
      const res = await fetch(`${url}/api/v1${path}`, {
        method, signal: AbortSignal.timeout(150_000),
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json ? { 'content-type': 'application/json' } : {}) },
        body: json ? JSON.stringify(json) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - t0 };
    } catch {
      return { status: 0, body: undefined, ms: performance.now() - t0 };
    }
  };
  const must = async (method: string, path: string, token?: string, json?: unknown) => {
    const a = await call(method, path, token, json);
    if (a.status >= 300 || a.status === 0) throw new Error(`${method} ${path}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
    return a.body;
  };
  const waitJob = async (admin: string, id: string) => {
    for (;;) {
      const job = (await must('GET', `/admin/jobs/${id}`, admin)).data;
      if (job.state === 'completed') return job;
      if (job.state === 'failed') throw new Error(`job ${id} failed: ${job.failed_reason}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  try {
    const admin = (await must('POST', '/auth/login', undefined, ADMIN)).access_token as string;
    io.err('loading a small sample market first\n');
    await waitJob(admin, (await must('POST', '/admin/jobs', admin, { type: 'load-sample', seed: 1, stocks: 20, days: 30 })).data.id);
    const code = ((await must('GET', '/stocks?limit=1', admin)).data as { code: string }[])[0]!.code;
    const users = await Promise.all(Array.from({ length: CLIENTS }, async (_, i) => {
      const email = `bench-writer-${i}@example.com`;
      const password = 'bench-password-1';
      await must('POST', '/auth/register', undefined, { email, password, name: `writer ${i}` });
      const login = await must('POST', '/auth/login', undefined, { email, password });
      return { email, password, refresh: login.data.refresh_token as string, token: login.access_token as string };
    }));

    const samples = new Map<Op, number[]>(OPS.map((op) => [op, []]));
    const refused = new Map<Op, Map<string, number>>(OPS.map((op) => [op, new Map()]));
    const record = (op: Op, a: Answer) => {
      samples.get(op)!.push(a.ms);
      if (a.status < 200 || a.status >= 300) {
        const key = a.status === 0 ? 'no answer' : String(a.status);
        refused.get(op)!.set(key, (refused.get(op)!.get(key) ?? 0) + 1);
      }
    };
    io.err(`loading the full sample market (${STOCKS ?? 'every listed'} stocks × ${DAYS} days) with ${CLIENTS} writers\n`);
    const job = (await must('POST', '/admin/jobs', admin, { type: 'load-sample', seed: 42, days: DAYS, replace: true, ...(STOCKS ? { stocks: STOCKS } : {}) })).data;
    let loading = true;
    const done = waitJob(admin, job.id).finally(() => (loading = false));
    const writers = users.map(async (u, i) => {
      for (let n = 0; loading; n++) {
        const login = await call('POST', '/auth/login', undefined, { email: u.email, password: u.password });
        record('login', login);
        // A refresh token is single-use: after a failed refresh the login's fresh one carries on.
        if (login.status === 200) (u.token = login.body.access_token, u.refresh = login.body.data.refresh_token);
        const refresh = await call('POST', '/auth/refresh', undefined, { refresh_token: u.refresh });
        record('refresh', refresh);
        if (refresh.status === 200) u.refresh = refresh.body.data.refresh_token;
        record('preset save', await call('POST', '/screen/presets', u.token, { name: `p${i}-${n}`, query: { expression: 'per > 0 and roe > 5' } }));
        record('alert create', await call('POST', '/alerts', u.token, { code, alert_type: 'price_above', threshold: 1_000_000 + n }));
        await new Promise((r) => setTimeout(r, PAUSE_MS));
      }
    });
    const finished = await done;
    await Promise.all(writers);
    const wallS = (Date.parse(finished.finished_at) - Date.parse(finished.started_at)) / 1000;

    io.out(`writes during a full sample-market load (${root})\n`);
    io.out('operation\tcount\tp50_ms\tp99_ms\tmax_ms\tnot_2xx\n');
    for (const op of OPS) {
      const s = samples.get(op)!.sort((a, b) => a - b);
      const bad = [...refused.get(op)!].map(([k, v]) => `${k}×${v}`).join(' ') || '0';
      io.out(`${op}\t${s.length}\t${pct(s, 50).toFixed(0)}\t${pct(s, 99).toFixed(0)}\t${(s.at(-1) ?? NaN).toFixed(0)}\t${bad}\n`);
    }
    io.out(`load wall time\t${wallS.toFixed(1)} s\t(stocks ${finished.result?.indicators?.stocks ?? '?'}, rows ${finished.result?.rows_ok ?? '?'})\n`);
    return 0;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    await deletePrefix(redis.url, prefix).catch(() => undefined);
    await redis.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
