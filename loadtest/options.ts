/**
 * Options of a load-test run: one zod schema with the bounds that keep every run finite
 * (time, connections, rate, request count), defaults, and `parseDuration` for flags like
 * `30s` or `2m`.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { invalidRequest } from '../daemon/errors.js';

/** Scenarios run by `all`, in this order. */
export const SCENARIO_NAMES = [
  'screen-simple',
  'screen-complex',
  'stocks-mixed',
  'auth-login',
  'rate-limit',
  'ws-fanout',
  'ws-reconnect-storm',
] as const;

/** Scenarios only run when named: an authenticated GET (rate limiter on/off) and the bare-server baseline. */
export const EXTRA_SCENARIO_NAMES = ['auth-get', 'http-baseline'] as const;

/** Every scenario name. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number] | (typeof EXTRA_SCENARIO_NAMES)[number];

/** Hard bounds: no option can make a run unbounded. */
export const LIMITS = {
  maxDurationS: 3600,
  maxWarmupS: 600,
  maxHttpConnections: 10_000,
  maxWsConnections: 100_000,
  maxStormClients: 20_000,
  maxRate: 1_000_000,
  /** Requests of one HTTP run at most (warm-up and measurement each). */
  maxRequestsPerRun: 10_000_000,
  maxTickRate: 100_000,
} as const;

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/**
 * Seconds of a duration given as a number (seconds) or text: `500ms`, `30s`, `2m`, `1h`, `45`.
 * @throws AppError INVALID_REQUEST for anything else
 */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value;
  } else {
    const m = DURATION.exec(value);
    if (m) return Number(m[1]) * UNIT_SECONDS[(m[2] ?? 's').toLowerCase()]!;
  }
  throw invalidRequest(`not a duration: ${String(value)} (use e.g. 30s, 2m, 500ms)`, { duration: 'like 30s, 2m or 500ms' });
}

const seconds = (min: number, max: number) =>
  z.union([z.number(), z.string()]).transform((v, ctx) => {
    try {
      const s = parseDuration(v);
      if (s < min || s > max) ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max} seconds` });
      return s;
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

const credentials = z.object({ email: z.string().min(3), password: z.string().min(1) });
const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** The options schema (input of runLoadtest). */
export const optionsSchema = z.strictObject({
  url: z.string().url().default('http://127.0.0.1:8000'),
  scenarios: z.union([z.literal('all'), z.array(z.enum([...SCENARIO_NAMES, ...EXTRA_SCENARIO_NAMES])).min(1)]).default('all'),
  /** Measured seconds per scenario. */
  duration: seconds(0.1, LIMITS.maxDurationS).default(30),
  /** Warm-up seconds before each REST measurement (default: a fifth of the duration, at most 5). */
  warmup: seconds(0, LIMITS.maxWarmupS).optional(),
  /** HTTP connections (REST) and WebSocket clients (ws scenarios) unless `ws` says otherwise. */
  connections: int(1, LIMITS.maxWsConnections).optional(),
  /** Fixed request rate per second over all connections (autocannon overallRate); absent: closed loop. */
  rate: z.number().min(1).max(LIMITS.maxRate).optional(),
  /** Let identical screening requests hit the result cache (default: vary a filter value per request). */
  cache: z.boolean().default(false),
  allowRemote: z.boolean().default(false),
  /** Bearer token for the REST scenarios; absent: a fresh bench user is registered. */
  token: z.string().min(10).optional(),
  /** Admin token or credentials: lifts the bench user to enterprise, sets custom limits, ingests ticks. */
  adminToken: z.string().min(10).optional(),
  admin: credentials.optional(),
  /** Seconds before a single request counts as a timeout. */
  timeout: seconds(0.1, 120).default(10),
  ws: z
    .strictObject({
      connections: int(1, LIMITS.maxWsConnections).optional(),
      /** Stock codes the clients subscribe to, spread over the pool (default: the largest `stocks` by market cap). */
      codes: z.array(z.string().regex(/^[0-9A-Z]{6}$/)).min(1).max(5000).optional(),
      stocks: int(1, 5000).default(100),
      perConnection: int(1, 1000).default(10),
      market: z.enum(['KOSPI', 'KOSDAQ']).optional(),
      workers: int(0, 64).optional(),
      /** Ticks per second the ingest source posts (spread round-robin over the pool). */
      tickRate: z.number().min(0).max(LIMITS.maxTickRate).default(200),
      /** `ingest`: POST /admin/ticks (needs an admin); `feed`: whatever the daemon's feed publishes. */
      tickSource: z.enum(['ingest', 'feed']).optional(),
      connectConcurrency: int(1, 10_000).default(200),
      /** Messages per second offered to each client (ws-fanout): sets the tick rate to this × stocks / stocks per client. */
      ratePerClient: z.number().min(0.1).max(1000).optional(),
      /** Pid of the daemon when it runs on this machine: its CPU per delivered message is read from /proc. */
      daemonPid: int(1, 2 ** 22).optional(),
    })
    .prefault({}),
  storm: z
    .strictObject({
      clients: int(1, LIMITS.maxStormClients).optional(),
      perConnection: int(1, 200).default(5),
      /** Seconds the clients stay away while ticks keep flowing (the messages they must get replayed). */
      downtime: seconds(0, 240).default(1),
      /**
       * Seconds over which the clients reconnect, evenly spread (0: all at once). Default: 1,000
       * clients a second, at most 10 s — 10,000 clients within 10 s, as after a restart or deploy.
       */
      window: seconds(0, 600).optional(),
    })
    .prefault({}),
  rateLimit: z
    .strictObject({
      /** Custom hourly limit given to the fresh user when an admin is available (else its tier's limit applies). */
      limit: int(1, 10_000).default(100),
      /** Requests fired beyond the limit. */
      extra: int(1, 10_000).default(50),
    })
    .prefault({}),
});

/** Options as callers give them. */
export type LoadtestOptions = z.input<typeof optionsSchema>;

/** Options with every default filled in. */
export interface ResolvedOptions extends Omit<z.output<typeof optionsSchema>, 'warmup' | 'scenarios'> {
  scenarios: ScenarioName[];
  warmup: number;
  httpConnections: number;
  wsConnections: number;
  wsWorkers: number;
  stormClients: number;
  /** Seconds over which the storm's clients reconnect. */
  stormWindow: number;
}

/**
 * Validate and default the options.
 * @throws AppError INVALID_REQUEST naming every bad option
 */
export function resolveOptions(input: LoadtestOptions): ResolvedOptions {
  const parsed = optionsSchema.safeParse(input);
  if (!parsed.success) {
    const details = Object.fromEntries(parsed.error.issues.map((i) => [i.path.join('.') || '(options)', i.message]));
    throw invalidRequest(`invalid load-test options: ${Object.entries(details).map(([k, v]) => `${k}: ${v}`).join('; ')}`, details);
  }
  const o = parsed.data;
  // --clients (ws.connections) names the storm's clients too.
  const stormClients = o.storm.clients ?? Math.min(o.ws.connections ?? o.connections ?? 200, LIMITS.maxStormClients);
  return {
    ...o,
    scenarios: o.scenarios === 'all' ? [...SCENARIO_NAMES] : [...new Set(o.scenarios)],
    warmup: o.warmup ?? Math.min(5, o.duration / 5),
    // REST runs cap at maxHttpConnections (a 10,000-client WebSocket run may share the flag).
    httpConnections: Math.min(o.connections ?? 10, LIMITS.maxHttpConnections),
    wsConnections: o.ws.connections ?? o.connections ?? 1000,
    // Leave a core to the daemon when it runs on the same machine.
    wsWorkers: o.ws.workers ?? Math.max(1, Math.min(4, availableParallelism() - 1)),
    stormClients,
    stormWindow: o.storm.window ?? Math.min(10, stormClients / 1000),
  };
}
