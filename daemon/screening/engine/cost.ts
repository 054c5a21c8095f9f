/**
 * The cost model of the screening language: what a query will cost to run, computed from the
 * parsed query alone (before any work), linear in the request's size, and checked against the
 * caller's tier budget. Formula columns are counted once each, as they are evaluated: a column
 * is computed into a column of the snapshot view once and every later reference reads it, so a
 * reference costs one node, however long the referenced column's definition is.
 *
 * - `nodes`: expression-tree nodes of the expression, every column definition and the score.
 *   Each is one closure call per universe row (≈ 2,700 on the full market).
 * - `cross_terms`: rank, rank_asc, pct_rank and zscore terms (each score factor is one): each
 *   sorts the universe.
 * - `history_fields`: indicator fields an as-of screen must rebuild from the market history
 *   (0 for a screen of the current market); each costs about a second of CPU the first time.
 * - `cells`: rows × columns of the answer (per_page × item columns): encoding, cache bytes.
 * - `units`: one number for the whole, `nodes + 25 × cross_terms + 20 × history_fields + cells / 50`
 *   (rounded up): what the rate limiter weighs a request by, and what a backtest multiplies by
 *   its rebalance dates.
 */
import { invalidRequest } from '../../errors.js';
import { walk } from '../language/expression-format.js';
import { expressionOf, indicatorFieldsOf, itemColumns } from './query.js';
import { formulasOf } from '../language/formula-columns.js';
import type { ScreenQuery } from '../request/query-types.js';

/** What a query costs (see the module comment). */
export interface QueryCost {
  nodes: number;
  cross_terms: number;
  history_fields: number;
  cells: number;
  units: number;
}

/** The most a tier's query may cost; each bound applies on its own. */
export interface CostBudget {
  /** Most `units` of one screen, preset, live screen or screen alert. */
  units: number;
  nodes: number;
  cross_terms: number;
  history_fields: number;
  cells: number;
  /** Most `units × rebalance dates` of one backtest. */
  backtest_units: number;
}

/** Who a budget is for: an account tier, or an anonymous caller (live screens over WebSocket). */
export const BUDGET_TIERS = ['anonymous', 'free', 'basic', 'pro', 'enterprise'] as const;
/** One of BUDGET_TIERS. */
export type BudgetTier = (typeof BUDGET_TIERS)[number];

/** Who a query is parsed for: a tier whose budget it must fit, or `trusted` (queries the daemon built or checked before). */
export type ScreenCaller = BudgetTier | 'trusted';

/** The weights of `units` (documented in GET /screen/fields and the screening README). */
export const COST_WEIGHTS = Object.freeze({ node: 1, cross_term: 25, history_field: 20, cells_per_unit: 50 });

/** Costs per query object, kept beside it (the query stays plain data); released with the query. */
const COSTS = new WeakMap<ScreenQuery, QueryCost>();

/**
 * The cost of `query` (parsed by the request parser or built in code), computed once per query
 * object. `knownFields`: the indicator registry (what an as-of screen reads from history).
 */
export function costOf(query: ScreenQuery, knownFields: ReadonlySet<string>): QueryCost {
  const kept = COSTS.get(query);
  if (kept !== undefined) return kept;
  let nodes = 0;
  let crossTerms = 0;
  const count = (ast: Parameters<typeof walk>[0]): void =>
    walk(ast, (e) => {
      nodes++;
      if (e.kind === 'xsec') crossTerms++;
    });
  const parsed = expressionOf(query);
  if (parsed !== undefined) count(parsed.ast);
  for (const f of formulasOf(query)) count(f.parsed.ast);
  const cells = query.per_page * itemColumns(query, parsed).length;
  const history = query.as_of === undefined ? 0 : indicatorFieldsOf(query, knownFields).length;
  const units = Math.ceil(
    nodes * COST_WEIGHTS.node + crossTerms * COST_WEIGHTS.cross_term + history * COST_WEIGHTS.history_field + cells / COST_WEIGHTS.cells_per_unit,
  );
  const cost: QueryCost = Object.freeze({ nodes, cross_terms: crossTerms, history_fields: history, cells, units });
  // A frozen query (a shared template) is costed each time: it may be read with other known fields.
  if (Object.isExtensible(query)) COSTS.set(query, cost);
  return cost;
}

/**
 * What one backtest costs: each rebalance date is an as-of screen of `query` (every indicator
 * it reads comes from history), so the run costs that screen's units times its dates.
 */
export function backtestCost(query: ScreenQuery, knownFields: ReadonlySet<string>, signals: number): { per_date: QueryCost; units: number } {
  const perDate = costOf({ ...query, as_of: query.as_of ?? 'backtest' }, knownFields);
  return { per_date: perDate, units: perDate.units * signals };
}

/**
 * Refuses a backtest over `budget`: each date's screen must fit the tier's screen budget (as an
 * as-of screen) and the whole run its `backtest_units`.
 * @throws AppError INVALID_REQUEST naming the limit (paths under `query.`, or `rebalance`/`from` for the run's size)
 */
export function checkBacktestBudget(query: ScreenQuery, knownFields: ReadonlySet<string>, signals: number, budget: CostBudget, tier: BudgetTier): void {
  const { per_date, units } = backtestCost(query, knownFields, signals);
  try {
    checkBudget(query, per_date, budget, tier);
  } catch (err) {
    const e = err as ReturnType<typeof invalidRequest>;
    throw invalidRequest(`Invalid query: ${e.message}`, Object.fromEntries(Object.entries(e.details).map(([k, v]) => [['limit', 'tier', 'cost', 'budget'].includes(k) ? k : `query.${k}`, v])));
  }
  if (units <= budget.backtest_units) return;
  const message = `This backtest costs ${units} cost units (${per_date.units} per rebalance date × ${signals} dates); the ${tier} tier allows ${budget.backtest_units} per run. Rebalance less often, shorten the period or simplify the screen.`;
  throw invalidRequest(message, { rebalance: message, limit: 'backtest_units', tier, cost: { ...per_date, dates: signals, units }, budget: { ...budget } });
}

/** The request field a limit is about, for the 400's field-level details. */
const LIMIT_PATHS: Readonly<Record<Exclude<keyof CostBudget, 'backtest_units'>, (query: ScreenQuery) => string>> = {
  units: () => 'cost',
  nodes: (q) => ((q.columns?.length ?? 0) > 0 || q.score !== undefined ? 'columns' : 'expression'),
  cross_terms: (q) => ((q.columns?.length ?? 0) > 0 || q.score !== undefined ? 'columns' : 'expression'),
  history_fields: () => 'fields',
  cells: () => 'per_page',
};

const LIMIT_WORDS: Readonly<Record<keyof CostBudget, string>> = {
  units: 'cost units',
  nodes: 'expression nodes (expression, columns and score)',
  cross_terms: 'rank/pct_rank/zscore terms',
  history_fields: 'indicator fields read from history (as_of)',
  cells: 'cells (per_page × columns)',
  backtest_units: 'cost units × rebalance dates',
};

/**
 * Refuses `cost` when it is over `budget`: a 400 whose details name the field, the limit, the
 * cost and the budget.
 * @throws AppError INVALID_REQUEST naming the first bound exceeded
 */
export function checkBudget(query: ScreenQuery, cost: QueryCost, budget: CostBudget, tier: BudgetTier): void {
  for (const limit of ['nodes', 'cross_terms', 'history_fields', 'cells', 'units'] as const) {
    if (cost[limit] <= budget[limit]) continue;
    throw overBudget(LIMIT_PATHS[limit](query), limit, cost[limit], budget[limit], tier, cost, budget);
  }
}

/** The 400 of a request over its tier's budget. */
export function overBudget(path: string, limit: keyof CostBudget, value: number, max: number, tier: BudgetTier, cost: QueryCost, budget: CostBudget) {
  const message = `This request costs ${value} ${LIMIT_WORDS[limit]}; the ${tier} tier allows ${max}. Simplify it (fewer columns, ranks, fields or rows) or upgrade.`;
  return invalidRequest(message, { [path]: message, limit, tier, cost: { ...cost }, budget: { ...budget } });
}
