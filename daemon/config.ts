/**
 * Daemon configuration: one zod schema, resolved once from
 * flag > STOCKSCREEN_* environment variable > JSON config file > default, then frozen.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { z } from 'zod';

const bool = z.preprocess((v) => {
  if (typeof v === 'string') {
    if (/^(1|true|yes|on)$/i.test(v)) return true;
    if (/^(0|false|no|off)$/i.test(v)) return false;
  }
  return v;
}, z.boolean());

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A provider's base URL, without a trailing slash (paths are appended to it). */
const httpUrl = () => z.string().regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be an http(s) URL').transform((u) => u.replace(/\/+$/, ''));
/** A time of day in Korea (HH:MM). */
const kstTime = () => z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM');
/** A cron expression (five fields, read in Asia/Seoul). */
const cronSchedule = () => z.string().min(9).max(100);

/** The spec's endpoint limits ("Endpoint limits"), requests per hour. */
export const DEFAULT_ENDPOINT_LIMITS = {
  'POST /screen': 50,
  'GET /stocks/{code}': 200,
  'POST /auth/register': 10,
  'POST /auth/login': 10,
} as const;

const ENDPOINT_KEY = /^(GET|POST|PUT|PATCH|DELETE)\s+(\/\S*)$/i;

/**
 * Endpoint limits: the given entries are merged over the spec's defaults (so overriding
 * one keeps the others); `null` removes a default. Keys are normalised to `METHOD /path`.
 */
const endpointLimits = z
  .record(z.string().regex(ENDPOINT_KEY, 'keys look like "POST /screen"'), int(1, 1e9).nullable())
  .optional()
  .transform((given) => {
    const merged: Record<string, number> = { ...DEFAULT_ENDPOINT_LIMITS };
    for (const [key, limit] of Object.entries(given ?? {})) {
      const [, method, path] = ENDPOINT_KEY.exec(key.trim())!;
      const name = `${method!.toUpperCase()} ${path!}`;
      if (limit === null) delete merged[name];
      else merged[name] = limit;
    }
    return merged;
  });

/** One tier's limits; either may be given alone, the other keeps its default. */
const tierLimits = (perHour: number, perDay: number) =>
  z.strictObject({ per_hour: int(1, 1e9).default(perHour), per_day: int(1, 1e10).default(perDay) }).prefault({});

/** Rate-limit settings; the spec's numbers are the defaults. */
const rateLimitSchema = z
  .strictObject({
    enabled: bool.default(true),
    anonymous_per_hour: int(1, 1e9).default(100),
    tiers: z
      .strictObject({
        free: tierLimits(100, 2400),
        basic: tierLimits(1000, 24000),
        pro: tierLimits(10000, 240000),
        enterprise: tierLimits(100000, 2400000),
      })
      .prefault({}),
    endpoints: endpointLimits,
    /**
     * A limit or revocation check whose Redis reply is still missing this long after the command was
     * sent (judged after the daemon has read its sockets, so our own load never counts) fails open.
     */
    timeout_ms: int(1, 60000).default(1000),
    /** After this many consecutive failed checks Redis counts as down: checks fail open at once until one succeeds. */
    failures_to_fail_open: int(1, 1000).default(3),
  })
  .prefault({});

/** Names express's `trust proxy` understands besides addresses and CIDRs. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR (`10.0.0.0/8`, `fd00::/8`), an address/netmask, or one of TRUST_PROXY_NAMES. */
function isTrustedProxyEntry(entry: string): boolean {
  if (TRUST_PROXY_NAMES.has(entry)) return true;
  const [addr = '', range, ...rest] = entry.split('/');
  const family = isIP(addr);
  if (!family || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return isIP(range) === family;
}

/**
 * Which proxies are trusted to report the client address in X-Forwarded-For.
 * Never "trust everything" (the client would pick its own address): `true` (the bare
 * `--trust-proxy` flag) means one hop, a number N means N hops, and a string or array
 * lists the proxies' addresses/CIDRs. Output: false | hop count | list.
 */
const trustProxySchema = z.preprocess(
  (v) => {
    if (v === true) return 1;
    if (v === 0) return false;
    if (typeof v !== 'string') return v;
    const s = v.trim();
    if (/^(true|yes|on)$/i.test(s)) return 1;
    if (/^(false|no|off|0|)$/i.test(s)) return false;
    if (/^\d+$/.test(s)) return Number(s);
    return s.split(',').map((e) => e.trim()).filter(Boolean);
  },
  z.union([
    z.literal(false),
    z.number().int().min(1).max(32),
    z
      .array(z.string().refine(isTrustedProxyEntry, 'must be an IP address, a CIDR such as 10.0.0.0/8, or loopback/linklocal/uniquelocal'))
      .min(1),
  ], { error: 'must be true (one hop), a hop count, or a comma-separated list of proxy addresses/CIDRs' }),
);

/** Most active alerts per tier (null = unlimited); a tier left out keeps its default. */
const alertCapsSchema = z
  .strictObject({
    free: int(0, 1e9).nullable().default(10),
    basic: int(0, 1e9).nullable().default(100),
    pro: int(0, 1e9).nullable().default(1000),
    enterprise: int(0, 1e9).nullable().default(null),
  })
  .prefault({});

/** Backtests a user of each tier may have queued or running at once (null = unlimited); a tier left out keeps its default. */
const backtestLimitsSchema = z
  .strictObject({
    free: int(0, 1e6).nullable().default(2),
    basic: int(0, 1e6).nullable().default(3),
    pro: int(0, 1e6).nullable().default(5),
    enterprise: int(0, 1e6).nullable().default(10),
  })
  .prefault({});

/** Live screens a tier may hold, per WebSocket connection and per user across daemons. */
const liveTier = (n: number) =>
  z.strictObject({ per_connection: int(0, 10_000).default(n), per_user: int(0, 100_000).default(n) }).prefault({});
const liveScreenLimitsSchema = z
  .strictObject({ free: liveTier(1), basic: liveTier(5), pro: liveTier(20), enterprise: liveTier(100) })
  .prefault({});

/** Per-tier caps (null = unlimited); a tier left out keeps its default. */
const tierCaps = (free: number | null, basic: number | null, pro: number | null, enterprise: number | null) =>
  z
    .strictObject({
      free: int(0, 1e6).nullable().default(free),
      basic: int(0, 1e6).nullable().default(basic),
      pro: int(0, 1e6).nullable().default(pro),
      enterprise: int(0, 1e6).nullable().default(enterprise),
    })
    .prefault({});

/** An address or CIDR (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrCidr(entry: string): boolean {
  const [addr = '', bits, ...rest] = entry.split('/');
  const family = isIP(addr);
  if (!family || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * Outbound webhook destinations the operator trusts: false (public addresses over HTTPS only),
 * true (also loopback, private and link-local addresses, and plain HTTP to them; cloud metadata
 * addresses stay refused unless listed), or a list of addresses/CIDRs allowed, over HTTP too.
 */
const webhookAllowSchema = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    const s = v.trim();
    if (/^(1|true|yes|on)$/i.test(s)) return true;
    if (/^(0|false|no|off|)$/i.test(s)) return false;
    return s.split(',').map((e) => e.trim()).filter(Boolean);
  },
  z.union([z.boolean(), z.array(z.string().refine(isAddressOrCidr, 'must be an IP address or a CIDR such as 10.0.0.0/8')).min(1).max(100)], {
    error: 'must be true, false, or a comma-separated list of addresses/CIDRs',
  }),
);

/** Least milliseconds between two messages to one destination, by channel type (Telegram: about 1/s per chat). */
const pacingSchema = z
  .strictObject({
    webhook: int(0, 60_000).default(0),
    telegram: int(0, 60_000).default(1000),
    slack: int(0, 60_000).default(1000),
    discord: int(0, 60_000).default(500),
    email: int(0, 60_000).default(0),
  })
  .prefault({});

/** The most one request of a tier may cost (daemon/screening/engine/cost.ts); a bound left out keeps its default. */
const budgetTier = (units: number, nodes: number, historyFields: number, cells: number, backtestUnits: number) =>
  z
    .strictObject({
      units: int(1, 1e9).default(units),
      nodes: int(1, 1e9).default(nodes),
      cross_terms: int(0, 1e6).default(32),
      history_fields: int(0, 1e6).default(historyFields),
      cells: int(1, 1e9).default(cells),
      backtest_units: int(1, 1e12).default(backtestUnits),
    })
    .prefault({});
/**
 * What screening work may cost and how the CPU is shared (daemon/screening/README.md "Cost and
 * fair share"): per-tier budgets checked at parse time, the rate-limit weight of a request, the
 * CPU a request may use, and how many expensive requests a user may run at once.
 */
const screenLimitsSchema = z
  .strictObject({
    anonymous: budgetTier(400, 300, 0, 2_000, 1),
    free: budgetTier(2_000, 1_500, 24, 20_000, 200_000),
    basic: budgetTier(5_000, 4_000, 48, 50_000, 1_000_000),
    pro: budgetTier(20_000, 16_000, 120, 60_000, 5_000_000),
    enterprise: budgetTier(50_000, 40_000, 120, 60_000, 20_000_000),
    /** A request's rate-limit weight is 1 + floor(units / weight_unit), at most max_weight (a refused body: 1 per weight_body_bytes). */
    weight_unit: int(1, 1e9).default(200),
    weight_body_bytes: int(1, 1e9).default(8 * 1024),
    max_weight: int(1, 1000).default(10),
    /** CPU time (ms of its own slices, not time spent waiting, nor waiting for an as-of snapshot) a screen, CSV export or as-of screen may use before it is stopped. */
    deadline_ms: int(10, 3_600_000).default(10_000),
    /** Expensive screens (a cache miss with columns, ranks, as_of or CSV) one user runs at once on a daemon; more wait their turn. */
    per_user_concurrency: int(1, 1000).default(2),
    /** Expensive screens that run at once on a daemon, all users together (taken in turn between users). */
    concurrency: int(1, 1000).default(4),
    /** Expensive screens of one user waiting for a turn; more are refused (429). */
    per_user_queue: int(0, 10_000).default(8),
  })
  .prefault({});

/** The validated configuration schema (also documents every setting). */
/**
 * The defaults of the WebSocket settings, written once: the config schema below defaults to them
 * and so does a gateway built without them (daemon/ws/gateway.ts DEFAULT_WS_OPTIONS), so a
 * daemon and a gateway in a test enforce the same limits unless told otherwise.
 */
export const WS_DEFAULTS = Object.freeze({
  batch_interval_ms: 30,
  rate_limit: 100,
  max_subscriptions: 200,
  max_targets_per_request: 50,
  session_ttl_s: 300,
  heartbeat_ms: 30_000,
  replay_max_messages: 5000,
  /** Open connections per client address of anonymous callers, across daemons (0: no cap). */
  max_connections_per_address: 50,
  /** Open connections per user, across daemons (0: no cap). */
  max_connections_per_user: 20,
});

export const configSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: int(0, 65535).default(8000),
  /**
   * Connections the kernel may hold completed but not yet accepted (listen backlog). After a
   * restart every client reconnects at once: Node's default (511) resets the rest of such a storm.
   * The kernel caps it at net.core.somaxconn.
   */
  listen_backlog: int(1, 65535).default(4096),
  /**
   * Longest a shutdown may take (ms): running jobs are handed back to the queue, connections that
   * cannot close are dropped, and the process exits when this runs out, whatever is still pending.
   */
  shutdown_timeout_ms: int(1000, 3_600_000).default(30_000),
  /** Default: `$XDG_DATA_HOME/stockscreen` of the environment given to loadConfig (see defaultDataDir). */
  data_dir: z.string().min(1),
  redis_url: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').default('redis://127.0.0.1:6379'),
  redis_prefix: z.string().min(1).max(64).default('stockscreen:'),
  /** API-side Redis commands (revocation checks, screen cache, quotes) fail after this, so a hung Redis cannot stall requests. */
  redis_command_timeout_ms: int(10, 60_000).default(500),
  /** PostgreSQL instead of the sqlite file in data_dir (several daemons share it). */
  database_url: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL').optional(),
  /** PostgreSQL schema for the tables (created when missing); default: the server's search_path. */
  database_schema: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _').optional(),
  database_pool_size: int(1, 1000).default(10),
  /**
   * Longest a request waits for the database (sqlite: for its writer; PostgreSQL: for a pooled
   * connection) before it answers 503 with Retry-After instead of hanging.
   */
  database_wait_ms: int(50, 120_000).default(5000),
  sample: bool.default(false),
  sample_seed: int(0, 2 ** 31).default(42),
  /** `sample`: the largest this many listed issues (default all of them); a small market for tests and demos. */
  sample_stocks: int(10, 5000).optional(),
  /** `sample`: trading days of history (default 500). */
  sample_days: int(30, 1500).optional(),
  jwt_secret: z.string().min(32, 'must be at least 32 characters').optional(),
  access_token_ttl_s: int(60, 86400).default(3600),
  refresh_token_ttl_s: int(300, 90 * 86400).default(30 * 86400),
  admin_email: z.string().email().optional(),
  admin_password: z.string().min(8).optional(),
  body_limit: z.string().regex(/^\d+(b|kb|mb)$/i, 'like 1mb or 512kb').default('1mb'),
  log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  workers: int(0, 64).default(1),
  trust_proxy: trustProxySchema.default(false),
  market_clock: z.enum(['krx', 'always-open', 'always-closed']).default('krx'),
  /** Where prices come from: the simulator, external ticks only (`ingest`), the KIS Open API (`kis`), or nothing. */
  feed: z.enum(['simulator', 'ingest', 'kis', 'off']).default('simulator'),
  /** KIS Open API app key (feed `kis`); read from the environment or the config file, never logged. */
  kis_app_key: z.string().min(1).max(200).optional(),
  /** KIS Open API app secret (feed `kis`); never logged, never on a command line. */
  kis_app_secret: z.string().min(1).max(400).optional(),
  /** KIS REST host (the paper-trading host is https://openapivts.koreainvestment.com:29443). */
  kis_rest_url: z.string().regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be an http(s) URL').default('https://openapi.koreainvestment.com:9443'),
  /** KIS WebSocket host (paper trading: ws://ops.koreainvestment.com:31000). */
  kis_ws_url: z.string().regex(/^wss?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be a ws(s) URL').default('ws://ops.koreainvestment.com:21000'),
  /** REST calls per second the feed allows itself per app key (live accounts about 20, paper about 2). */
  kis_rest_calls_per_s: z.coerce.number().positive().max(1000).default(20),
  /** Real-time registrations on the one WebSocket session (the provider allows 41 per app key). */
  kis_ws_max_registrations: int(0, 1000).default(41),
  /** A registered code's socket counts as silent after this long without a frame during a session. */
  kis_ws_silence_ms: int(100, 600_000).default(30_000),
  /** Pause between two sweeps of the whole market (0: the next sweep starts when one ends). */
  kis_sweep_pause_ms: int(0, 600_000).default(0),
  /** Least time between two token (or approval key) requests across daemons: the provider's one a minute; lower only against a test double. */
  kis_token_interval_ms: int(100, 3_600_000).default(60_000),
  feed_interval_ms: int(10, 60000).default(1000),
  /** Simulator: trades per stock per second on average, whatever feed_interval_ms (above one per step: several per step). */
  feed_updates_per_stock_per_s: z.coerce.number().positive().max(100).default(1),
  ws_batch_interval_ms: int(0, 10000).default(WS_DEFAULTS.batch_interval_ms),
  ws_rate_limit: int(1, 100000).default(WS_DEFAULTS.rate_limit),
  ws_max_subscriptions: int(1, 100000).default(WS_DEFAULTS.max_subscriptions),
  ws_max_targets_per_request: int(1, 10000).default(WS_DEFAULTS.max_targets_per_request),
  ws_session_ttl_s: int(1, 86400).default(WS_DEFAULTS.session_ttl_s),
  screen_cache_ttl_s: int(0, 86400).default(300),
  risk_free_rate: z.coerce.number().min(0).max(1).default(0.03),
  alert_caps: alertCapsSchema,
  live_screen_limits: liveScreenLimitsSchema,
  /** Share of one core the live screens' whole-list re-runs (ranks, scores, formula columns) may take, however many there are. */
  live_rerun_share: z.coerce.number().min(0.01).max(1).default(0.2),
  /** Time one slice of whole-list re-runs may take before the event loop is given back (a re-run dearer than that pauses within itself; 0: every unit of work is a slice). */
  live_rerun_slice_ms: int(0, 1000).default(8),
  /** Least time between two re-runs of one whole list. */
  live_rerun_every_ms: int(1, 60_000).default(25),
  /** Backtests per user queued or running at once, by tier. */
  backtest_limits: backtestLimitsSchema,
  /** Most backtests waiting in the queue, all users together; more → 503. */
  backtest_queue_max: int(1, 1_000_000).default(100),
  /**
   * Rebalance dates a queued backtest screens per turn; then it goes back to the queue behind the
   * runs waiting (fair between users) and resumes from its checkpoint (0: a run keeps its worker to the end).
   */
  backtest_slice_dates: int(0, 100_000).default(10),
  /**
   * How long POST /screen/backtest waits for a market history this daemon has not read yet (the
   * first run after a start or a load) before it answers the run as queued in its
   * `reading_history` phase, so a client shows what is happening instead of waiting blind (0: never waits).
   */
  backtest_plan_wait_ms: int(0, 60_000).default(750),
  /** Backtests this daemon runs at once (its BullMQ worker's concurrency; 0: it only enqueues, other daemons run them). */
  backtest_workers: int(0, 16).default(1),
  /**
   * Read the market history and build the common indicator series after start and after every new
   * data version, so the first as-of screen or backtest does not pay for them (≈400 MB
   * and a few seconds of CPU per daemon on a full market; off: read on the first as-of request).
   */
  as_of_preload: bool.default(false),
  /**
   * Compute as-of dates and their indicator series on a thread of their own (history/as-of-thread.ts),
   * so that work never pauses the daemon's requests (off: on the daemon's thread, time-sliced).
   */
  as_of_thread: bool.default(true),
  /**
   * MB the daemon's screening caches hold together (screening/engine/memory-budget.ts): the indicator
   * series of as-of screens and backtests, the as-of snapshots, the formula and rank memo, the
   * answers kept in process, and the series being built; the entry last used longest ago goes
   * first, whichever cache holds it. The process holds this plus the market history and requests.
   */
  memory_budget_mb: int(64, 1_048_576).default(320),
  /** Backtests a `stockscreend worker` process runs at once (default 0: none; each such process reads its own copy of the market history). */
  worker_backtests: int(0, 16).default(0),
  /** Events kept in the Redis stream for fan-out and session replay. */
  ws_history: int(1000, 10_000_000).default(200_000),
  /** Most messages replayed to a restored session; a larger gap gets a snapshot instead (history_truncated). */
  ws_replay_max_messages: int(0, 1_000_000).default(WS_DEFAULTS.replay_max_messages),
  ws_heartbeat_ms: int(100, 600_000).default(WS_DEFAULTS.heartbeat_ms),
  rate_limit: rateLimitSchema,
  /** Screening cost budgets by tier, rate-limit weights, deadline and fair share (JSON in STOCKSCREEN_SCREEN_LIMITS). */
  screen_limits: screenLimitsSchema,
  /** log2 of scrypt's N for password hashes (OWASP: 17). Lower values exist for test suites only; older hashes are re-hashed at login. */
  password_scrypt_log_n: int(10, 20).default(17),
  /** GET /metrics without credentials (else: `metrics_token` or an admin access token as bearer). */
  metrics_public: bool.default(false),
  /** A static bearer token for Prometheus scrapers of /metrics. */
  metrics_token: z.string().min(32, 'must be at least 32 characters').max(256).optional(),
  /** Open WebSocket connections per client address of anonymous callers, across every daemon (0: no cap). */
  ws_max_connections_per_address: int(0, 1_000_000).default(WS_DEFAULTS.max_connections_per_address),
  /** Open WebSocket connections per user, across every daemon (0: no cap). */
  ws_max_connections_per_user: int(0, 1_000_000).default(WS_DEFAULTS.max_connections_per_user),
  /** Log lines: `pretty` (coloured, one readable line each), `json` (pino), `auto` = pretty on a terminal, JSON otherwise. */
  log_format: z.enum(['auto', 'pretty', 'json']).default('auto'),
  /**
   * Directories load jobs may read server-side paths from. Default none: path loads
   * are off and operators upload files. Env: STOCKSCREEN_IMPORT_DIRS, separated by the OS path delimiter.
   */
  import_dirs: z.preprocess((v) => (typeof v === 'string' ? v.split(delimiter).filter(Boolean) : v), z.array(z.string().min(1)).max(100)).default([]),
  /** Largest file `POST /admin/uploads` accepts (bytes; default 4 GiB). */
  upload_max_bytes: z.coerce.number().int().min(1).max(2 ** 45).default(4 * 2 ** 30),
  /** A market or backtest job's lock (ms): a job whose worker died is retried (or shown stalled) once it lapses. */
  job_lock_ms: int(1000, 600_000).default(30_000),
  /** Webhook URLs that resolve to loopback, private, link-local addresses (and plain HTTP to them) are refused unless allowed here. */
  webhook_allow_private: webhookAllowSchema.default(false),
  /** Base URL of the Telegram Bot API (a local Bot API server, or a fake in tests). */
  telegram_api_url: z.string().regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be an http(s) URL').default('https://api.telegram.org'),
  /** SMTP server for e-mail channels (`smtp://user:pass@host:587`, `smtps://…`); none: e-mail channels are refused. */
  smtp_url: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  /** Sender of notification e-mails. */
  smtp_from: z.string().min(3).max(320).default('stockscreen <noreply@localhost>'),
  /** Notification channels a user may own, by tier. */
  channel_caps: tierCaps(3, 10, 50, null),
  /** Daily digests a user may schedule, by tier. */
  schedule_caps: tierCaps(2, 10, 50, null),
  /** One delivery attempt's hard limit (connect, send, answer): a slower receiver is a timeout, retried. */
  delivery_timeout_ms: int(100, 60_000).default(10_000),
  /** A delivery still failing this long after its event is given up (dead). */
  delivery_max_age_s: int(1, 30 * 86_400).default(86_400),
  /** Firings for one channel within this window after the first go out as one message (0: each at once). */
  delivery_group_wait_ms: int(0, 600_000).default(5000),
  /** First retry delay; each further one doubles, up to delivery_retry_max_ms, with jitter. */
  delivery_retry_base_ms: int(10, 3_600_000).default(5000),
  delivery_retry_max_ms: int(10, 86_400_000).default(7_200_000),
  delivery_pacing_ms: pacingSchema,
  /** Deliveries this daemon sends at once (0: it only queues them for other daemons). */
  delivery_workers: int(0, 1000).default(16),
  /** How often the digest clock looks for schedules due (one look per interval across daemons). */
  digest_check_interval_ms: int(100, 3_600_000).default(30_000),
  /** How often deliveries left without a queued job (a daemon died between two steps) are queued again. */
  delivery_sweep_interval_ms: int(100, 3_600_000).default(30_000),
  /** KRX Open API key (openapi.krx.co.kr; each service approved separately). Never logged, never answered. */
  krx_api_key: z.string().min(1).max(512).optional(),
  /** KRX Open API base URL (the production base; a local fake in tests). */
  krx_api_url: httpUrl().default('https://data-dbg.krx.co.kr/svc/apis'),
  /** KST time (HH:MM) by which KRX has published the previous trading day's data. */
  krx_publish_time: kstTime().default('08:00'),
  /** When the daily KRX run starts (cron, KST); it fetches every published date not stored yet. */
  krx_schedule: cronSchedule().default('30 8 * * *'),
  /** Calls per KRX key per day (its terms: 10,000); a run waits for the next day rather than go over. */
  krx_daily_calls: int(1, 1_000_000).default(10_000),
  /** Least time between two KRX calls (ms). */
  krx_min_interval_ms: int(0, 60_000).default(200),
  /**
   * Base URL of FinanceDataReader's KRX cache (third-party, keyless; the public one is
   * https://raw.githubusercontent.com/FinanceData/fdr_krx_data_cache/master/data). Unset: the source
   * is off and the daemon makes no call to it.
   */
  fdr_cache_url: httpUrl().optional(),
  /** KST time (HH:MM) by which the cache holds a trading day's final file (it refreshes during the day until about 18:00). */
  fdr_publish_time: kstTime().default('18:30'),
  /** When the daily FDR cache run starts (cron, KST). */
  fdr_schedule: cronSchedule().default('0 19 * * *'),
  /** Least time between two calls to the cache (ms). */
  fdr_min_interval_ms: int(0, 60_000).default(500),
  /** OpenDART key (crtfc_key, 40 characters, opendart.fss.or.kr). Never logged, never answered, never on a command line. */
  dart_api_key: z.string().min(1).max(512).optional(),
  /** OpenDART base URL (a local fake in tests). */
  dart_api_url: httpUrl().default('https://opendart.fss.or.kr/api'),
  /** KST time (HH:MM) by which a day's filings are in; the daily run is expected done by then plus the stale grace. */
  dart_publish_time: kstTime().default('19:00'),
  /** When the daily OpenDART run starts (cron, KST): the four most recent quarters of every listed company. */
  dart_schedule: cronSchedule().default('30 19 * * *'),
  /** Calls per OpenDART key per day (its 020 limit: 20,000); a run waits for the next day rather than go over. */
  dart_daily_calls: int(1, 1_000_000).default(20_000),
  /** Least time between two OpenDART calls (ms): 100 keeps under 600 a minute, far from the 1,000 a minute that gets an IP blocked. */
  dart_min_interval_ms: int(0, 60_000).default(100),
  /** Companies per key-accounts call (OpenDART takes at most 100). */
  dart_batch_size: int(1, 100).default(100),
  /** Fetch each company's full statements once per new disclosure: cash flow, cash, borrowings and gross profit are not key accounts, and financial companies are not in the key-accounts service. */
  dart_full_statements: bool.default(true),
  /** Run the data sources' daily schedules (each daemon registers the same schedulers; one run per slot across daemons). */
  sources_schedule: bool.default(true),
  /** Minutes after a date's publication before its absence counts as stale (the daily run plus its retries). */
  sources_stale_grace_min: int(0, 7 * 1440).default(240),
  /** Most dates a daily run catches up on after an outage (more: use a backfill). */
  sources_catch_up_days: int(1, 1000).default(10),
  /** One provider call's hard limit (connect, headers, body), ms. */
  source_timeout_ms: int(100, 600_000).default(30_000),
  /** Further attempts of a provider call after a transient failure (5xx, timeout, an error page, an empty answer). */
  source_retries: int(0, 20).default(4),
  /** First retry delay of a provider call (ms); each further one doubles, with jitter. */
  source_retry_base_ms: int(1, 600_000).default(2000),
});

/** Fully resolved, frozen daemon configuration. */
export type Config = Readonly<z.infer<typeof configSchema>>;
/** Partial configuration as given by flags, env or a file. */
export type ConfigInput = z.input<typeof configSchema>;

/** Where config values may come from, lowest precedence last. */
export interface ConfigSources {
  flags?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** Path of a JSON config file (also taken from flags.config or STOCKSCREEN_CONFIG). */
  file?: string;
}

/** A configuration problem, one line per bad setting. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Environment variables read besides STOCKSCREEN_<KEY>. The STOCKSCREEN_ form wins when
 * both are set (bin/ensure-redis.sh follows the same order).
 */
const ENV_ALIASES: Record<string, string> = {
  REDIS_URL: 'redis_url',
  DATABASE_URL: 'database_url',
};

/** Settings whose environment variable holds JSON. */
const JSON_KEYS = new Set(['rate_limit', 'alert_caps', 'live_screen_limits', 'backtest_limits', 'screen_limits', 'channel_caps', 'schedule_caps', 'delivery_pacing_ms']);

/** A source's values plus the problems met reading it. */
interface Collected {
  values: Record<string, unknown>;
  problems: string[];
}

/**
 * Resolve the configuration from its sources and validate it once. Object-valued
 * settings (rate_limit, alert_caps) are merged key by key across sources.
 * @throws ConfigError listing every problem (unreadable file, bad JSON, bad values), one per line
 */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const flags = dropUndefined(sources.flags ?? {});
  const filePath = (flags.config as string | undefined) ?? env.STOCKSCREEN_CONFIG ?? sources.file;
  delete flags.config;
  const fromEnv = envValues(env);
  const fromFile: Collected = filePath ? readConfigFile(filePath) : { values: {}, problems: [] };
  const merged = deepMerge(deepMerge(fromFile.values, fromEnv.values), flags);
  const problems = [...fromFile.problems, ...fromEnv.problems];
  let config: Config | undefined;
  try {
    config = parseConfig(merged, { env });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0 || !config) throw new ConfigError(problems);
  return config;
}

/** Options of parseConfig. */
export interface ParseConfigOptions {
  /** Environment the defaults are computed from (data_dir); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Validate a configuration object (defaults filled, result frozen).
 * @throws ConfigError listing every bad setting
 */
export function parseConfig(input: Record<string, unknown>, options: ParseConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const given = dropUndefined(input);
  const problems = pairingProblems(given);
  const result = configSchema.strict().safeParse({ data_dir: defaultDataDir(env), ...given });
  if (!result.success) {
    problems.unshift(...result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return Object.freeze(result.data);
}

/** Settings that only make sense together (the admin bootstrap needs both halves). */
function pairingProblems(input: Record<string, unknown>): string[] {
  const has = (key: string) => input[key] !== undefined && input[key] !== '';
  if (has('admin_email') && !has('admin_password')) return ['admin_password: required when admin_email is set (STOCKSCREEN_ADMIN_PASSWORD)'];
  if (has('admin_password') && !has('admin_email')) return ['admin_email: required when admin_password is set (STOCKSCREEN_ADMIN_EMAIL)'];
  if (input.feed === 'kis' && !(has('kis_app_key') && has('kis_app_secret'))) {
    return ['kis_app_key: feed kis needs the app key and secret (STOCKSCREEN_KIS_APP_KEY and STOCKSCREEN_KIS_APP_SECRET in the environment or the config file)'];
  }
  return [];
}

function envValues(env: NodeJS.ProcessEnv): Collected {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, key] of Object.entries(ENV_ALIASES)) {
    if (env[name] !== undefined && env[name] !== '') values[key] = env[name];
  }
  for (const key of Object.keys(configSchema.shape)) {
    const name = `STOCKSCREEN_${key.toUpperCase()}`;
    const value = env[name];
    if (value === undefined || value === '') continue;
    if (!JSON_KEYS.has(key)) {
      values[key] = value;
      continue;
    }
    const parsed = parseJson(value);
    if (parsed.ok) values[key] = parsed.value;
    else problems.push(`${name}: not valid JSON (${parsed.error})`);
  }
  return { values, problems };
}

function readConfigFile(path: string): Collected {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { values: {}, problems: [`config: cannot read ${path}: ${(err as Error).message}`] };
  }
  const parsed = parseJson(text);
  if (!parsed.ok) return { values: {}, problems: [`config: ${path} is not valid JSON (${parsed.error})`] };
  if (!isPlainObject(parsed.value)) return { values: {}, problems: [`config: ${path} must hold a JSON object`] };
  return { values: parsed.value, problems: [] };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `over` wins; plain objects present on both sides are merged key by key. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] = isPlainObject(prev) && isPlainObject(value) ? deepMerge(prev, value) : value;
  }
  return out;
}

function dropUndefined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/** `$XDG_DATA_HOME/stockscreen`, or `$HOME/.local/share/stockscreen`, read from `env`. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(base, 'stockscreen');
}
