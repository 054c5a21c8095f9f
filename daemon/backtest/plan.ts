/**
 * A backtest request resolved against the loaded history: which screen (a query, a
 * preset's query or a template), the first and last day, how many rebalance dates, the rules.
 * Done when a run is asked for (to answer 400 at once) and again by the worker that runs it.
 */
import { AppError, invalidRequest, isAppError } from '../errors.js';
import type { AsOfService } from '../history/as-of-service.js';
import type { ScreenCaller } from '../screening/engine/cost.js';
import { expressionOf, type ScreenQuery } from '../screening/engine/query.js';
import { applyTemplateOverrides, getTemplate, listTemplates } from '../screening/templates/templates.js';
import { addDays } from '../kernel/krx-calendar.js';
import { signalDays } from './calendar.js';
import type { BacktestRequest } from '../contract/backtests.js';
import type { BacktestRules } from './types.js';

/** A validated, resolved run. */
export interface BacktestPlan {
  query: ScreenQuery;
  fromDay: number;
  toDay: number;
  signals: number;
  rules: BacktestRules;
}

/** What planning needs. */
export interface PlanDeps {
  asOf: AsOfService;
  /** Parses a screening request within `caller`'s budget (ScreenService.parse). @throws AppError INVALID_REQUEST */
  parseScreen(body: unknown, caller: ScreenCaller): ScreenQuery;
  riskFreeRate: number;
}

/** Every indicator a query reads: its filters, expression, sort keys and columns, and market_cap (weights). */
export function queryFields(query: ScreenQuery): string[] {
  return [
    ...query.filters.map((f) => f.field), ...(expressionOf(query)?.fields ?? []), ...query.sort.map((s) => s.field), ...query.fields, 'market_cap',
  ];
}

/** Exactly one screen source given; 400 otherwise. @throws AppError INVALID_REQUEST */
export function checkOneSource(req: BacktestRequest): void {
  const sources = (['query', 'preset_id', 'template'] as const).filter((k) => req[k] !== undefined);
  if (sources.length !== 1) throw invalidRequest('give exactly one of query, preset_id, template', { query: 'give exactly one of query, preset_id, template' });
}

/**
 * The screen of a request; `presetQuery` is the preset's query when the request names one
 * (looked up by the caller). @throws AppError INVALID_REQUEST with field details
 */
export function screenOf(deps: PlanDeps, req: BacktestRequest, presetQuery: Record<string, unknown> | undefined, caller: ScreenCaller): ScreenQuery {
  checkOneSource(req);
  if (req.template !== undefined) {
    const template = getTemplate(req.template);
    if (!template) throw invalidRequest(`unknown template '${req.template}'`, { template: `unknown template; one of ${listTemplates().map((t) => t.id).join(', ')}` });
    return applyTemplateOverrides(template, req.market ? { market: req.market } : {});
  }
  const raw = req.query ?? presetQuery;
  if (raw === undefined) throw invalidRequest('unknown preset', { preset_id: 'no preset of yours has this id' });
  if ('as_of' in raw) throw invalidRequest('as_of is set by the rebalance dates', { 'query.as_of': 'not allowed in a backtest: each rebalance date sets it' });
  try {
    return deps.parseScreen(raw, caller);
  } catch (err) {
    if (!isAppError(err)) throw err;
    throw new AppError('INVALID_REQUEST', `Invalid query: ${err.message}`, Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`query.${k}`, v])));
  }
}

/**
 * The most rebalance dates a request can have whatever history is loaded (`today`: the latest
 * date a history may hold): one per period between `from` and `to` counted over every calendar
 * day, plus one. Lets the cost of a run be checked before the history is read: a run that fits
 * its budget at this count fits it at the real one.
 */
export function signalsAtMost(req: Pick<BacktestRequest, 'from' | 'to' | 'rebalance'>, today: string): number {
  const to = req.to ?? today;
  const days: string[] = [];
  for (let d = req.from; d <= to && days.length < 100_000; d = addDays(d, 1)) days.push(d);
  return days.length === 0 ? 1 : signalDays(days, 0, days.length - 1, req.rebalance).length + 1;
}

/**
 * Resolve a request against the loaded history; `caller`: whose budget the screen must fit
 * (`trusted` when a worker re-plans a run checked when it was asked for).
 * @throws AppError INVALID_REQUEST with field details
 */
export async function planBacktest(deps: PlanDeps, req: BacktestRequest, presetQuery: Record<string, unknown> | undefined, caller: ScreenCaller): Promise<BacktestPlan> {
  const query = screenOf(deps, req, presetQuery, caller);
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
