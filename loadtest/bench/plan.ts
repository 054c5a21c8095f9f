/**
 * What `npm run bench` runs and at which scale. The full plan is meant to fit a 2-core
 * machine in under 10 minutes (the run records and judges its wall time);
 * `BENCH_SCALE=quick` is a one-minute smoke run of the same steps, `BENCH_SCALE=tiny` a
 * check of the wiring that takes seconds per step (its figures mean nothing).
 */
import type { ConfigInput } from '../../daemon/config.js';

/** The scale of a bench run. */
export interface BenchPlan {
  name: 'full' | 'quick' | 'tiny';
  market: { stocks: number; days: number; seed: number };
  rest: { duration: number; warmup: number; connections: number };
  /** Fixed-rate runs (req/s) besides the closed-loop ones. */
  fixedRate: { simple: number; complex: number };
  loginConnections: number;
  ws: { connections: number; perConnection: number; stocks: number; tickRate: number; workers: number; duration: number };
  storm: { clients: number; perConnection: number; downtime: number };
  engineIterations: number;
  /**
   * Alert evaluation: `count` active alerts; `ticks` replayed in process; end to end,
   * `seconds` of POST /admin/ticks with and without them, `inFlight` requests of `batch` ticks.
   */
  alerts: { count: number; ticks: number; seconds: number; batch: number; inFlight: number };
  /** Live screens, in process: ticks/s with `screens`, CPU per tick with `cpuScreens` vs none; each run ≤ `seconds`. */
  live: { screens: number; cpuScreens: number; ticks: number; seconds: number };
  /** Live screens end to end (bench/live-delivery.ts): a daemon, `connections` clients holding `screens`, `rounds` of `seconds` with and without them. */
  liveDelivery: { connections: number; screens: number; users: number; presetsPerUser: number; seconds: number; rounds: number };
}

/** The full plan: the whole sample market, 2,000 WebSocket clients offered 110,000 messages/s. */
export const FULL_PLAN: BenchPlan = {
  name: 'full',
  market: { stocks: 2700, days: 260, seed: 42 },
  rest: { duration: 10, warmup: 3, connections: 10 },
  fixedRate: { simple: 50, complex: 20 },
  loginConnections: 4,
  // 2,000 clients × 10 stocks over 100 stocks = 200 subscribers per stock; 550 ticks/s × 200 = 110,000 msg/s
  // offered, a little over the spec's 100,000 so that the throughput target is judged.
  ws: { connections: 2000, perConnection: 10, stocks: 100, tickRate: 550, workers: 1, duration: 10 },
  storm: { clients: 500, perConnection: 5, downtime: 1 },
  engineIterations: 300,
  alerts: { count: 10_000, ticks: 200_000, seconds: 5, batch: 100, inFlight: 2 },
  live: { screens: 10_000, cpuScreens: 1000, ticks: 50_000, seconds: 3 },
  liveDelivery: { connections: 500, screens: 1000, users: 20, presetsPerUser: 3, seconds: 10, rounds: 2 },
};

/** A quick smoke run of every step. */
export const QUICK_PLAN: BenchPlan = {
  name: 'quick',
  market: { stocks: 200, days: 260, seed: 42 },
  rest: { duration: 2, warmup: 1, connections: 4 },
  fixedRate: { simple: 20, complex: 10 },
  loginConnections: 2,
  ws: { connections: 100, perConnection: 5, stocks: 20, tickRate: 100, workers: 1, duration: 2 },
  storm: { clients: 50, perConnection: 2, downtime: 0.5 },
  engineIterations: 50,
  alerts: { count: 500, ticks: 20_000, seconds: 1, batch: 50, inFlight: 2 },
  live: { screens: 2000, cpuScreens: 1000, ticks: 10_000, seconds: 1 },
  liveDelivery: { connections: 50, screens: 100, users: 5, presetsPerUser: 2, seconds: 3, rounds: 1 },
};

/** A wiring check: every step at the smallest scale that still measures something. */
export const TINY_PLAN: BenchPlan = {
  name: 'tiny',
  market: { stocks: 30, days: 80, seed: 42 },
  rest: { duration: 0.5, warmup: 0, connections: 2 },
  fixedRate: { simple: 10, complex: 10 },
  loginConnections: 1,
  ws: { connections: 10, perConnection: 2, stocks: 10, tickRate: 20, workers: 1, duration: 0.5 },
  storm: { clients: 5, perConnection: 2, downtime: 0.2 },
  engineIterations: 20,
  alerts: { count: 100, ticks: 2000, seconds: 0.5, batch: 20, inFlight: 2 },
  live: { screens: 100, cpuScreens: 50, ticks: 1000, seconds: 0.3 },
  liveDelivery: { connections: 5, screens: 10, users: 2, presetsPerUser: 1, seconds: 1, rounds: 1 },
};

/** The plan BENCH_SCALE names (`quick`, `tiny`), else the full one. */
export function planFor(env: NodeJS.ProcessEnv): BenchPlan {
  return env.BENCH_SCALE === 'quick' ? QUICK_PLAN : env.BENCH_SCALE === 'tiny' ? TINY_PLAN : FULL_PLAN;
}

/** Endpoint limits raised so that only the limit under test can throttle the bench (the spec's endpoint limits are 10–200/h). */
export const RAISED_ENDPOINT_LIMITS = {
  'POST /screen': 1e9,
  'GET /stocks/{code}': 1e9,
  'POST /auth/register': 1e9,
  'POST /auth/login': 1e9,
} as const;

/** Settings of a bench daemon. */
export interface BenchDaemonSettings {
  dataDir: string;
  redisUrl: string;
  prefix: string;
  admin: { email: string; password: string };
  jwtSecret: string;
  rateLimit: boolean;
  workers: number;
}

/**
 * The bench daemon's config: loopback, port 0, a temp data dir and its own Redis prefix,
 * an admin from config, ticks by ingest only (the load drives them), the market always
 * open, and every per-address and per-endpoint limit raised — the bench user is lifted to
 * enterprise with a custom limit by the admin, so nothing throttles the load except the
 * rate-limit scenario's own user.
 */
export function benchDaemonConfig(s: BenchDaemonSettings): ConfigInput {
  return {
    host: '127.0.0.1',
    port: 0,
    data_dir: s.dataDir,
    redis_url: s.redisUrl,
    redis_prefix: s.prefix,
    log_level: 'warn',
    jwt_secret: s.jwtSecret,
    workers: s.workers,
    admin_email: s.admin.email,
    admin_password: s.admin.password,
    feed: 'ingest',
    market_clock: 'always-open',
    rate_limit: { enabled: s.rateLimit, anonymous_per_hour: 1e9, endpoints: { ...RAISED_ENDPOINT_LIMITS } },
    // The WebSocket scenarios open thousands of connections as one user from one address.
    ws_max_connections_per_address: 0,
    ws_max_connections_per_user: 0,
  };
}
