/** Screening endpoints on the wire: POST /screen (and its aliases), GET /screen/fields, GET /screen/templates, GET /screen/live. */
import { z } from 'zod';

/** Largest page of a screen (`per_page`). */
export const MAX_PER_PAGE = 500;
/** Page size when none is given (spec: 50 in the empty-request response). */
export const DEFAULT_PER_PAGE = 50;
/** Most sort keys one request may give. */
export const MAX_SORT_KEYS = 5;
/** Most formula columns one request may define. */
export const MAX_COLUMNS = 20;
/** Most factors of one score. */
export const MAX_SCORE_FACTORS = 20;
/** What `by` (cross-sectional functions, a score's groups) may group on. */
export const GROUP_BY = ['sector', 'industry', 'market'] as const;
/** Universe flags a stock may carry (what `exclude` names). */
export const STOCK_FLAGS = ['administrative', 'spac', 'preferred', 'halted'] as const;
/** Markets a screen may be limited to (ALL: both). */
export const SCREEN_MARKETS = ['KOSPI', 'KOSDAQ', 'ALL'] as const;

/**
 * One entry of GET /screen/fields: an indicator of the registry (`min_history`: trading days of
 * price history needed, 0 when none) and `coverage`, the stocks of the current snapshot with a value.
 */
export const ScreenField = z
  .object({
    id: z.string(), label_ko: z.string(), label_en: z.string(), unit: z.string(), category: z.string(), inputs: z.array(z.string()).readonly(),
    min_history: z.number().describe('Trading days of price history needed; 0 when none'), definition: z.string(),
    coverage: z.number().describe('Stocks of the current snapshot with a value'),
  })
  .meta({ id: 'ScreenField' });
export type ScreenField = z.output<typeof ScreenField>;

/** One entry of GET /screen/templates. */
export const ScreenTemplate = z
  .object({
    id: z.string(), name_ko: z.string(), name_en: z.string(), description: z.string(),
    query: z.record(z.string(), z.unknown()).describe('The template\'s screen (universe, filters, expression, sort, per_page)'),
    required_fields: z.array(z.string()).readonly().describe('Indicators its filters and expression read'),
    missing_inputs: z.array(z.string()).describe('Required fields no stock of the current snapshot has'),
  })
  .meta({ id: 'ScreenTemplate' });
export type ScreenTemplate = z.output<typeof ScreenTemplate>;

/** One item of a screen: identity columns plus the requested values (numbers, texts or null). */
export const ScreenItem = z
  .object({ code: z.string(), name: z.string(), market: z.string(), sector: z.string().nullable() })
  .catchall(z.union([z.string(), z.number(), z.null()]));
export type ScreenItem = z.output<typeof ScreenItem>;

/** The page of a screen answer (`data`, and `stocks` in shape B). */
export const ScreenItems = z.array(ScreenItem).meta({ id: 'ScreenItems' });

/** `filters_applied` of a screen answer: the market (ALL when none), the count, and each applied filter. */
export const FiltersApplied = z.object({ market: z.enum(['KOSPI', 'KOSDAQ', 'ALL']), _count: z.number() }).catchall(z.unknown());
export type FiltersApplied = z.output<typeof FiltersApplied>;

/**
 * `meta.explain` of a screen that matched nothing: the universe's size (market, sectors,
 * exclusions, before any condition), the stocks left after each top-level condition in turn
 * (each `and` term of the expression, then each range filter), and the fields the screen reads
 * that under half of the universe has, with what to load so they are.
 */
export const ScreenExplanation = z.object({
  universe: z.number(),
  steps: z.array(z.object({ condition: z.string(), remaining: z.number() })),
  coverage: z.array(z.object({ field: z.string(), known: z.number(), of: z.number(), remedy: z.string() })),
});
export type ScreenExplanation = z.output<typeof ScreenExplanation>;

/**
 * The body of a screen answer: the envelope plus the spec's shape-B top-level fields (`stocks`
 * is `data`). `missing_inputs` and `message`: required inputs no stock has (a template on data
 * without financials); `meta.as_of` the trading day an as-of screen used, `meta.columns` the
 * request's formula columns and score, `meta.explain` why nothing matched.
 */
export const ScreenBody = z
  .object({
    status: z.literal('success'),
    data: ScreenItems,
    stocks: ScreenItems,
    query_time_ms: z.number(),
    filters_applied: FiltersApplied,
    missing_inputs: z.array(z.string()).optional(),
    message: z.string().optional(),
    meta: z.object({
      timestamp: z.string(), request_id: z.string(), total: z.number(), page: z.number(), per_page: z.number(), total_pages: z.number(),
      snapshot_version: z.string(),
      as_of: z.string().optional().describe('The trading day an as-of screen used (the last on or before the request\'s as_of)'),
      cached: z.boolean(),
      columns: z.array(z.object({ name: z.string(), expression: z.string() })).optional().describe('The request\'s formula columns and score with their definitions'),
      explain: ScreenExplanation.optional().describe('Present when nothing matched: why'),
    }),
  })
  .meta({ id: 'ScreenBody' });
export type ScreenBody = z.output<typeof ScreenBody>;

/** Query of POST /screen (and /screening): which prices to screen on, and CSV instead of JSON. */
export const ScreenRunQuery = z.object({
  prices: z
    .enum(['snapshot', 'live'])
    .optional()
    .describe('snapshot (default): the latest indicator snapshot, cached. live: the snapshot with price-dependent fields at live prices (what live screens see); never cached.'),
  format: z.enum(['json', 'csv']).optional().describe('csv: stream every match as CSV'),
});
export type ScreenRunQuery = z.output<typeof ScreenRunQuery>;

/** One of the caller's live screens (GET /screen/live): opened over the WebSocket, listed until unsubscribed or its connection closes. */
export const LiveScreenEntry = z.object({
  screen_id: z.string(),
  source: z.string().describe('preset:<id>, template:<id> or query'),
  query: z.record(z.string(), z.unknown()).describe('The normalised query the screen evaluates'),
  daemon: z.string().describe('Instance id of the daemon evaluating it'),
  connection_id: z.string(),
  created_at: z.string(),
});
export type LiveScreenEntry = z.output<typeof LiveScreenEntry>;
