/**
 * Backtests as a use case (issue 23): validate a request against the loaded history, then run
 * it — directly when it has at most DIRECT_MAX_SIGNALS rebalance dates (the answer carries the
 * result), else in the background, one run at a time per daemon, with its progress stored so
 * `GET /screen/backtests/{id}` can follow it. Runs are kept per owner; another user's is absent.
 *
 * Runs execute in the daemon's process, not on a BullMQ worker: each rebalance screens an as-of
 * snapshot built from the in-memory history the daemon already holds for as-of screens (≈100
 * MB for a full market), which a worker process would have to load a second copy of.
 */
import { randomUUID } from 'node:crypto';
import { AppError, invalidRequest, isAppError } from '../errors.js';
import type { AsOfService } from '../history/as-of-service.js';
import { expressionOf, matchAll, type ScreenQuery } from '../screening/query.js';
import { depthFor } from '../history/point-indicators.js';
import { valueAt } from '../screening/snapshot.js';
import { applyTemplateOverrides, getTemplate, listTemplates } from '../screening/templates.js';
import type { BacktestsRepo, StoredBacktest } from '../store/backtests-repo.js';
import { signalDays } from './calendar.js';
import type { BacktestRequest } from './request.js';
import { simulate } from './simulate.js';
import type { BacktestResult, BacktestRules, Selected } from './types.js';

/** Runs with at most this many rebalance dates are answered directly. */
export const DIRECT_MAX_SIGNALS = 6;
/** How often the daemon renews the heartbeat of the runs it holds (queued or running). */
export const HEARTBEAT_MS = 30_000;
/** A running run whose heartbeat is older than this was interrupted (its daemon stopped). */
export const STALE_MS = 5 * 60_000;

/** Collaborators of the backtest service. */
export interface BacktestServiceDeps {
  asOf: AsOfService;
  /** Parses a screening request. @throws AppError INVALID_REQUEST */
  parseScreen(body: unknown): ScreenQuery;
  /** The owner's saved preset's query, or undefined. */
  presetQuery(userId: string, id: string): Promise<Record<string, unknown> | undefined>;
  repo: BacktestsRepo;
  riskFreeRate: number;
  onError?(err: unknown, id: string): void;
  /** Time source of heartbeats and staleness (default: the system clock). */
  now?: () => number;
}

/** The backtest use cases. */
export interface BacktestService {
  /** Validate and run (or start) a backtest. @throws AppError INVALID_REQUEST with field details */
  start(userId: string, request: BacktestRequest): Promise<StoredBacktest>;
  get(userId: string, id: string): Promise<StoredBacktest | undefined>;
  list(userId: string, limit: number): Promise<StoredBacktest[]>;
  /** Resolves once every run started so far has finished. */
  idle(): Promise<void>;
  /** Stop background runs (they finish as failed) and wait for them. Idempotent. */
  close(): Promise<void>;
}

/** A validated, resolved run. */
interface Plan {
  query: ScreenQuery;
  fromDay: number;
  toDay: number;
  signals: number;
  rules: BacktestRules;
}

/** Every indicator a query reads: its filters, expression, sort keys and columns, and market_cap (weights). */
export function queryFields(query: ScreenQuery): string[] {
  return [
    ...query.filters.map((f) => f.field), ...(expressionOf(query)?.fields ?? []), ...query.sort.map((s) => s.field), ...query.fields, 'market_cap',
  ];
}

/** Create the backtest service. */
export function createBacktestService(deps: BacktestServiceDeps): BacktestService {
  let queue: Promise<unknown> = Promise.resolve();
  let closing = false;
  const now = deps.now ?? Date.now;
  // Runs this daemon holds: their heartbeat is renewed so other daemons (and this one after a
  // restart) can tell a run still under way from one whose daemon was killed.
  const held = new Set<string>();
  const beat = setInterval(() => {
    if (held.size > 0) void deps.repo.heartbeat([...held], new Date(now()).toISOString()).catch(() => undefined);
  }, HEARTBEAT_MS);
  beat.unref();
  const settleStale = (userId: string) =>
    deps.repo.failStale(userId, new Date(now() - STALE_MS).toISOString(), new Date(now()).toISOString());

  async function screenOf(userId: string, req: BacktestRequest): Promise<ScreenQuery> {
    const sources = (['query', 'preset_id', 'template'] as const).filter((k) => req[k] !== undefined);
    if (sources.length !== 1) throw invalidRequest('give exactly one of query, preset_id, template', { query: 'give exactly one of query, preset_id, template' });
    if (req.template !== undefined) {
      const template = getTemplate(req.template);
      if (!template) throw invalidRequest(`unknown template '${req.template}'`, { template: `unknown template; one of ${listTemplates().map((t) => t.id).join(', ')}` });
      return applyTemplateOverrides(template, req.market ? { market: req.market } : {});
    }
    const raw = req.query ?? (await deps.presetQuery(userId, req.preset_id ?? ''));
    if (raw === undefined) throw invalidRequest('unknown preset', { preset_id: 'no preset of yours has this id' });
    if ('as_of' in raw) throw invalidRequest('as_of is set by the rebalance dates', { 'query.as_of': 'not allowed in a backtest: each rebalance date sets it' });
    try {
      return deps.parseScreen(raw);
    } catch (err) {
      if (!isAppError(err)) throw err;
      throw new AppError('INVALID_REQUEST', `Invalid query: ${err.message}`, Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`query.${k}`, v])));
    }
  }

  async function plan(userId: string, req: BacktestRequest): Promise<Plan> {
    const query = await screenOf(userId, req);
    const from = await deps.asOf.resolve(req.from, 'from');
    const history = from.history;
    const to = await deps.asOf.resolve(req.to ?? history.dates[history.dates.length - 1] ?? req.from, 'to');
    if ((req.to ?? to.date) <= req.from) throw invalidRequest('from must be before to', { from: 'must be before to', to: 'must be after from' });
    if (to.day <= from.day) throw invalidRequest('no trading day between from and to', { to: `no trading day after ${from.date} up to this date: nothing to trade` });
    const signals = signalDays(history.dates, from.day, to.day, req.rebalance).length;
    const rules: BacktestRules = {
      rebalance: req.rebalance, top: req.top === 'all' ? null : req.top, weighting: req.weighting, fee_bps: req.fee_bps,
      tax_bps: req.tax_bps, slippage_bps: req.slippage_bps, benchmark: req.benchmark, capital: req.capital, risk_free_rate: deps.riskFreeRate,
    };
    return { query, fromDay: from.day, toDay: to.day, signals, rules };
  }

  async function execute(id: string, p: Plan): Promise<BacktestResult> {
    const history = await deps.asOf.history();
    const fields = queryFields(p.query);
    const depth = depthFor(fields);
    const select = async (day: number): Promise<Selected[]> => {
      if (closing) throw new Error('interrupted: the daemon is stopping');
      const snapshot = await deps.asOf.snapshotOf({ history, day, date: history.dates[day] ?? '' }, depth, fields);
      const rows = matchAll(snapshot, { ...p.query, page: 1 }).rows;
      const n = p.rules.top === null ? rows.length : Math.min(rows.length, p.rules.top);
      return Array.from(rows.subarray(0, n), (row) => ({ code: snapshot.codes[row] ?? '', market_cap: valueAt(snapshot, 'market_cap', row) }));
    };
    return simulate({ history, fromDay: p.fromDay, toDay: p.toDay, rules: p.rules, select, onProgress: (done, total) => deps.repo.progress(id, done, total) });
  }

  async function run(id: string, p: Plan): Promise<void> {
    try {
      await deps.repo.finish(id, { result: await execute(id, p) });
    } catch (err) {
      deps.onError?.(err, id);
      await deps.repo.finish(id, { error: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    } finally {
      held.delete(id);
    }
  }

  return {
    async start(userId, request) {
      if (closing) throw new AppError('SERVICE_UNAVAILABLE', 'the daemon is stopping');
      const p = await plan(userId, request);
      const id = randomUUID();
      await deps.repo.create(userId, id, request as unknown as Record<string, unknown>, p.signals);
      held.add(id);
      if (p.signals <= DIRECT_MAX_SIGNALS) await run(id, p);
      else queue = queue.then(() => run(id, p));
      return (await deps.repo.get(userId, id))!;
    },
    async get(userId, id) {
      await settleStale(userId);
      return deps.repo.get(userId, id);
    },
    async list(userId, limit) {
      await settleStale(userId);
      return deps.repo.list(userId, limit);
    },
    idle: async () => void (await queue.catch(() => undefined)),
    async close() {
      closing = true;
      clearInterval(beat);
      await queue.catch(() => undefined);
    },
  };
}
