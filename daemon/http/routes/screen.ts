/**
 * Screening endpoints: POST /screen (alias /screening) in both request and response
 * shapes of the spec, CSV export, the field catalogue and predefined templates.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { INDICATORS } from '../../indicators/registry.js';
import { PERCENTILE_CONVENTION } from '../../kernel/percentile.js';
import type { CompiledScreen } from '../../screening/request/compiled-screen.js';
import { screenRequestJsonSchema } from '../../screening/request/request-openapi.js';
import { type CacheFound, type ScreenAnswer, type ScreenService, type ScreenSummary, type ScreenWork } from '../../screening/engine/screen-service.js';
import { BUDGET_TIERS, COST_WEIGHTS, type BudgetTier } from '../../screening/engine/cost.js';
import { ClientGoneError } from '../../screening/engine/work-guard.js';
import type { Snapshot } from '../../screening/engine/snapshot.js';
import type { SnapshotService } from '../../screening/engine/snapshot-service.js';
import { listTemplates, missingInputs, requireTemplate } from '../../screening/templates/templates.js';
import { FUNCTION_DOCS, GROUP_BY, MAX_CROSS_TERMS } from '../../screening/language/expression-functions.js';
import { MAX_COLUMNS, MAX_SCORE_FACTORS } from '../../screening/language/formula-columns.js';
import type { ApiBuilder, CachedAnswerLookup, ValidRequest } from '../api.js';
import { ScreenBody, ScreenField, ScreenRunQuery, ScreenTemplate } from '../../contract/screening.js';
import { meta, sendSuccess } from '../envelope.js';
import { csvChunks, writeChunks } from './screen-csv.js';
import { answerLiveScreen, wantsLivePrices } from './screen-live.js';

/** Collaborators of the screening routes. */
export interface ScreenRoutesDeps {
  screens: ScreenService;
  snapshot: SnapshotService;
  /** The live view: POST /screen?prices=live answers on it. */
  liveSnapshot?: () => Snapshot;
}

// Validation stays with screens.parse (field-level details, valid_fields); the documented
// schema is generated from the indicator registry and replaces the open record in OpenAPI.
const screenBody = z
  .record(z.string(), z.unknown())
  .meta({
    ...screenRequestJsonSchema(INDICATORS),
    id: 'ScreenRequest',
    description:
      'Shape A: {filters:{market, <indicator>:{min,max}}, sort:[{field,direction}], limit}. Shape B (flat): market, min_<indicator>, max_<indicator>. ' +
      'Also: sectors, industries, codes, exclude (administrative|spac|preferred|halted), expression, page, per_page (≤ 500), limit, fields, sort_by/order. {} is valid.',
    example: { filters: { market: 'KOSPI', per: { max: 10 }, roe: { min: 15 } }, sort: [{ field: 'roe', direction: 'desc' }], limit: 20 },
  });

const templateParams = z.object({ template: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be a template id such as value') });

/** True when the caller asked for CSV (Accept: text/csv, ?format=csv or body.format). */
export function wantsCsv(req: Request): boolean {
  const body = req.body as Record<string, unknown> | undefined;
  return req.query.format === 'csv' || body?.format === 'csv' || (req.accepts(['application/json', 'text/csv']) === 'text/csv' && !req.accepts('application/json'));
}

/**
 * One request's screen, what its validation step hands on: the compiled screen (shared by
 * every request with the same body bytes) and the answer the rate limiter's cache lookup found,
 * so the handler reads the cache no second time.
 */
export interface ScreenRun {
  readonly screen: CompiledScreen;
  /** What the rate limiter's lookup found: undefined when not looked up (limits off, Redis unavailable, a CSV export). */
  found?: CacheFound;
}

/** A request whose body parsed into a screen run. */
export type ScreenRequest = ValidRequest<{ body: ScreenRun }>;

/** A run of `screen` for one request (nothing looked up yet). */
export function screenRun(screen: CompiledScreen): ScreenRun {
  return { screen };
}

/** Stream every match (not one page) as CSV with a header row, honouring backpressure. */
async function sendCsv(res: Response, screens: ScreenService, screen: CompiledScreen, work: ScreenWork): Promise<void> {
  // Run before the headers go out, so a bad query still gets its 400.
  const matches = await screens.exportAll(screen, work);
  res.status(200).type('text/csv; charset=utf-8').setHeader('Content-Disposition', 'attachment; filename="screen.csv"');
  res.setHeader('X-Total-Count', String(matches.total));
  if (await writeChunks(res, csvChunks(matches))) res.end();
}

/** Screening bodies are small (a complex screen is ~1 KB); this bounds what an attacker can make us parse. */
export const SCREEN_BODY_LIMIT = 64 * 1024;

/** Screening bodies remembered (by their exact bytes) with their compiled screens. */
export const SCREEN_BODY_MEMO_SIZE = 1000;
/** Bodies longer than this are parsed every time (a memo entry costs its bytes). */
const MEMO_BODY_MAX = 8 * 1024;
/**
 * Bytes of remembered bodies. A compiled screen holds its syntax trees (tens of bytes per body
 * byte), so the memo is bounded by the bodies' bytes too, not only by their number.
 */
export const SCREEN_BODY_MEMO_BYTES = 1024 * 1024;

/** The budget a request's screen must fit: its caller's tier. */
export function callerOf(req: Request): BudgetTier {
  return req.user?.tier ?? 'anonymous';
}

/**
 * The rate-limit weights of every way of running a screen: a valid request counts as
 * 1 + floor(cost units / weight_unit), one refused as invalid as 1 + floor(body bytes /
 * weight_body_bytes), both at most max_weight (see daemon/screening/README.md).
 */
export function screenWeights(screens: ScreenService): { weight: (req: ScreenRequest) => number; refusalWeight: (req: Request) => number } {
  const { weight_unit, weight_body_bytes, max_weight } = screens.limits;
  return {
    weight: (req) => Math.min(max_weight, 1 + Math.floor(req.valid.body.screen.cost.units / weight_unit)),
    refusalWeight: (req) => Math.min(max_weight, 1 + Math.floor((req.rawBody?.length ?? 0) / weight_body_bytes)),
  };
}

/** Who runs a request's screen (fair share) and a signal that aborts when its client leaves. */
export function workOf(req: Request, res: Response): ScreenWork {
  const controller = new AbortController();
  // 'close' on the response before it finished: the client went away.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return { user: req.user?.id ?? `address:${req.ip ?? ''}`, signal: controller.signal };
}

/**
 * A screening body parser that remembers: the same bytes always compile to the same screen, so a
 * body seen recently (a dashboard refreshing, a script polling) skips validation, the
 * expression parser and the cache-key computation (all in the shared compiled screen). Bad
 * bodies are not remembered. Oldest forgotten first.
 */
export function memoisedScreenParser(screens: ScreenService): (body: unknown, req: Request) => ScreenRun {
  const memo = new Map<string, CompiledScreen>();
  let memoBytes = 0;
  return (body, req) => {
    const raw = req.rawBody && req.rawBody.length <= MEMO_BODY_MAX ? req.rawBody.toString('latin1') : undefined;
    const known = raw === undefined ? undefined : memo.get(raw);
    const caller = callerOf(req);
    if (known) {
      // The same body may come from callers of other tiers: the budget is checked per call.
      screens.check(known, caller);
      return screenRun(known);
    }
    const screen = screens.compile(body, caller);
    if (raw !== undefined) {
      if (memo.size >= SCREEN_BODY_MEMO_SIZE || memoBytes + raw.length > SCREEN_BODY_MEMO_BYTES) {
        const oldest = memo.keys().next().value as string;
        memo.delete(oldest);
        memoBytes -= oldest.length;
      }
      memo.set(raw, screen);
      memoBytes += raw.length;
    }
    return screenRun(screen);
  };
}

/**
 * `freeWhen` of every way of running a screen (POST /screen, /screening, templates, presets):
 * they share one cache keyed by the normalised query, so each is free exactly when its query's
 * answer is cached now (the spec: an answer from the result cache counts against nothing). An
 * answer in process is free at once; else the rate limiter reads the shared one in its own Redis
 * call, with the count of requests for it that decides whether an answer computed now is shared
 * (see ScreenService.run). What was found goes on the request's run for the handler. A CSV export
 * is never answered from the cache, so it always counts.
 */
export function freeWhenCached(screens: ScreenService): (req: ScreenRequest) => boolean | CachedAnswerLookup {
  return (req) => {
    if (wantsCsv(req)) return false;
    const run = req.valid.body;
    const probe = screens.cacheProbe(run.screen);
    if (probe === null) return false;
    if ('answer' in probe) {
      run.found = { answer: probe.answer, share: false };
      return true;
    }
    return {
      keys: probe.keys,
      found: (value, asked) => {
        const answer = screens.cacheFound(run.screen, value);
        // Asked for before (on any daemon) while it could be cached: worth sharing.
        run.found = { answer, share: asked >= 2 };
        return answer !== null;
      },
    };
  };
}

/**
 * Answer a parsed screen (`req.valid.body`): CSV, or the envelope plus the spec's shape-B
 * top-level fields. Every way of running a screen ends here.
 */
export async function answerScreen(req: ScreenRequest, res: Response, screens: ScreenService, extra: Pick<ScreenSummary, 'missing_inputs' | 'message'> = {}): Promise<void> {
  const { screen, found } = req.valid.body;
  const work = workOf(req, res);
  try {
    if (wantsCsv(req)) return await sendCsv(res, screens, screen, work);
    sendScreen(req, res, await screens.run(screen, extra, found, work));
  } catch (err) {
    // Nobody is left to answer: the work stopped because its client disconnected.
    if (err instanceof ClientGoneError) return;
    throw err;
  }
}

/**
 * Send a screen answer. The body is assembled around the stocks' bytes (serialised once per
 * answer, from the snapshot's pre-serialised rows): the spec's shape-B fields first (stocks, query_time_ms, filters_applied), then
 * the envelope, whose `data` is the same page.
 */
export function sendScreen(req: Request, res: Response, answer: ScreenAnswer): void {
  const { total, page, per_page, total_pages, query_time_ms, filters_applied, snapshot_version, as_of, missing_inputs, message, columns, explain } = answer;
  const { stocks } = answer;
  const extra = missing_inputs ? `,"missing_inputs":${JSON.stringify(missing_inputs)},"message":${JSON.stringify(message)}` : '';
  const middle = `,"query_time_ms":${JSON.stringify(query_time_ms)},"filters_applied":${JSON.stringify(filters_applied)}${extra},"status":"success","data":`;
  const fields = { total, page, per_page, total_pages, snapshot_version, ...(as_of !== undefined ? { as_of } : {}), cached: answer.cached, ...(columns ? { columns } : {}), ...(explain ? { explain } : {}) };
  const tail = `,"meta":${JSON.stringify(meta(req, fields satisfies Omit<ScreenBody['meta'], 'timestamp' | 'request_id'>))}}`;
  const body = Buffer.concat([STOCKS_OPEN, stocks, Buffer.from(middle), stocks, Buffer.from(tail)]);
  res.statusCode = 200;
  res.setHeader('X-Cache', answer.cached ? 'HIT' : 'MISS');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

const STOCKS_OPEN = Buffer.from('{"stocks":');

/** The cost model and the budgets in force, as GET /screen/fields documents them. */
function describeBudgets(screens: ScreenService) {
  const l = screens.limits;
  const budgets = Object.fromEntries(BUDGET_TIERS.map((tier) => [tier, l[tier]]));
  return {
    cost_weights: COST_WEIGHTS,
    budgets,
    rate_limit_weight: { unit: l.weight_unit, body_bytes: l.weight_body_bytes, max: l.max_weight },
    deadline_ms: l.deadline_ms,
    per_user_concurrency: l.per_user_concurrency,
  };
}

/** Everything reported on the one percentile scale (kernel/percentile.ts). */
const PERCENTILE_USERS = ['pct_rank', 'score', 'value_score', 'quality_score', 'growth_score', 'momentum_score'] as const;

const EVALUATION_ORDER = 'universe (market, sectors, industries, codes, exclude) → columns in order → score → range filters and expression → sort → page; rank, pct_rank and zscore rank over the universe, before any filter';

const SCREEN_DESCRIPTION =
  'Filters, expression, sort and page over the latest indicator snapshot. Identical requests (after normalisation; shape A and B alike) are answered from a 5-minute cache (X-Cache: HIT) that does not count against rate limits. ' +
  'Response: the envelope with data = the page of stocks and meta = {timestamp, request_id, total, page, per_page, total_pages}, plus top-level stocks, query_time_ms and filters_applied. Accept: text/csv or format=csv streams every match as CSV. as_of (YYYY-MM-DD) screens the market as known on that date; meta.as_of is the trading day used (see daemon/history/README.md). ' +
  'Cost: a request over its tier budget (GET /screen/fields meta.language.budgets) is a 400 whose details name the limit, the cost and the budget; it counts against the rate limits as 1 + units / weight_unit requests (a refused body as 1 + bytes / weight_body_bytes). ' +
  'A screen with columns, ranks or as_of waits for a fair-share turn (429 when the caller has too many waiting) and stops with 503 QUERY_TIMEOUT past its CPU deadline. ' +
  'When nothing matches, meta.explain says why: {universe: stocks before any condition, steps: [{condition, remaining}] for each top-level `and` term of the expression and then each filter, cumulatively, coverage: [{field, known, of, remedy}] for each field read that under half of the universe has (e.g. roe without financial statements)}.';

const FIELDS_DESCRIPTION =
  'meta.functions documents the expression functions (scalar and cross-sectional, with `by` groups); meta.language the limits of columns and score, ' +
  `the percentile convention (meta.language.percentile: ${PERCENTILE_CONVENTION}; used by ${PERCENTILE_USERS.join(', ')}), ` +
  'and the cost model: cost_weights (units = nodes + 25 × cross_terms + 20 × history_fields + cells / 50), budgets per tier (units, nodes, cross_terms, history_fields, cells, backtest_units; ' +
  'a request over any is a 400 whose details name the limit), rate_limit_weight (a screen counts as 1 + floor(units / unit) requests, a refused body 1 + floor(bytes / body_bytes), at most max) and deadline_ms.';

/** What every way of running a screen declares: its body limit, cost-weighted rate limiting and cache-free answers, and the answer's shape. */
function screeningSpec(screens: ScreenService) {
  const tags = ['screening'];
  return { tags, access: 'user', bodyLimit: SCREEN_BODY_LIMIT, freeWhen: freeWhenCached(screens), ...screenWeights(screens), errors: [503], response: ScreenBody, raw: true } as const;
}

/** Register the screening routes. */
export function registerScreenRoutes(api: ApiBuilder, deps: ScreenRoutesDeps): void {
  registerScreenRuns(api, deps);
  registerCatalogue(api, deps);
  registerTemplateRun(api, deps);
}

/** POST /screen and its alias POST /screening. */
function registerScreenRuns(api: ApiBuilder, deps: ScreenRoutesDeps): void {
  const parseScreenBody = memoisedScreenParser(deps.screens);
  const cachedFree = freeWhenCached(deps.screens);
  const { liveSnapshot } = deps;
  for (const path of ['/screen', '/screening']) {
    api.route(
      {
        ...screeningSpec(deps.screens), method: 'post', path, summary: path === '/screen' ? 'Screen stocks' : 'Screen stocks (alias of /screen)', description: SCREEN_DESCRIPTION,
        body: screenBody, parseBody: parseScreenBody, query: ScreenRunQuery,
        // A live-prices answer is never cached, so it always counts.
        freeWhen: (req) => (wantsLivePrices(req) ? false : cachedFree(req)),
        // The spec names /screening an alias of /screen, so it shares the endpoint limit.
        limitAs: 'POST /screen',
      },
      (req, res) => (liveSnapshot && wantsLivePrices(req) && !wantsCsv(req) ? answerLiveScreen(req, res, liveSnapshot, sendScreen) : answerScreen(req, res, deps.screens)),
    );
  }
}

/** GET /screen/fields and GET /screen/templates. */
function registerCatalogue(api: ApiBuilder, deps: ScreenRoutesDeps): void {
  const tags = ['screening'];
  api.route(
    { method: 'get', path: '/screen/fields', summary: 'Every screenable indicator with label, unit, category and definition', tags, access: 'user', description: FIELDS_DESCRIPTION, response: z.array(ScreenField) },
    (req, res) => {
      const snap = deps.snapshot.current();
      const language = {
        by: GROUP_BY, max_columns: MAX_COLUMNS, max_score_factors: MAX_SCORE_FACTORS, max_cross_terms: MAX_CROSS_TERMS, evaluation_order: EVALUATION_ORDER,
        percentile: { convention: PERCENTILE_CONVENTION, used_by: PERCENTILE_USERS },
        ...describeBudgets(deps.screens),
      };
      sendSuccess<ScreenField[]>(req, res, INDICATORS.map((d) => ({ ...d, coverage: snap.columns.get(d.id)?.count ?? 0 })), {
        meta: { total: INDICATORS.length, stocks: snap.size, functions: FUNCTION_DOCS, language },
      });
    },
  );
  api.route(
    { method: 'get', path: '/screen/templates', summary: 'Predefined screens (cached; exempt from rate limits)', tags, access: 'user', rateLimitExempt: true, response: z.array(ScreenTemplate) },
    (req, res) => {
      res.setHeader('Cache-Control', 'private, max-age=300');
      const snap = deps.snapshot.current();
      sendSuccess<ScreenTemplate[]>(req, res, listTemplates().map((t) => ({ ...t, missing_inputs: missingInputs(t, snap) })));
    },
  );
}

/** POST /screen/templates/{template}: a predefined screen, with the body's overrides. */
function registerTemplateRun(api: ApiBuilder, deps: ScreenRoutesDeps): void {
  api.route(
    {
      ...screeningSpec(deps.screens), method: 'post', path: '/screen/templates/:template', summary: 'Run a predefined screen; the body may override market, sort and page', params: templateParams, errors: [404, 503],
      description: 'When the loaded data lacks every value a template needs (e.g. no financial statements), the answer is empty with missing_inputs and a message, not an error. The body may also give as_of (YYYY-MM-DD): the template as of that date, meta.as_of the trading day used.',
      parseBody: (body, req) => {
        const { template } = req.valid.params;
        const chosen = requireTemplate(template);
        return screenRun(deps.screens.compileTemplate(chosen, deps.screens.templateOverrides(chosen, body), callerOf(req)));
      },
    },
    (req, res) => {
      const { template } = req.valid.params;
      const missing = missingInputs(requireTemplate(template), deps.snapshot.current());
      const extra = missing.length ? { missing_inputs: missing, message: `This template needs ${missing.join(', ')}, which no loaded stock has (load financial statements or more price history).` } : {};
      return answerScreen(req, res, deps.screens, extra);
    },
  );
}
