/** Screening endpoints on the wire: POST /screen (and its aliases), GET /screen/fields, GET /screen/templates. */
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

/** One entry of GET /screen/fields: an indicator of the registry and how many stocks have it. */
export interface ScreenField {
  id: string;
  label_ko: string;
  label_en: string;
  unit: string;
  category: string;
  inputs: readonly string[];
  /** Trading days of price history needed; 0 when none. */
  min_history: number;
  definition: string;
  /** Stocks of the current snapshot with a value. */
  coverage: number;
}

/** One entry of GET /screen/templates. */
export interface ScreenTemplate {
  id: string;
  name_ko: string;
  name_en: string;
  description: string;
  /** The template's screen (universe, filters, expression, sort, per_page) as a JSON object. */
  query: object;
  /** Indicators its filters and expression read. */
  required_fields: readonly string[];
  /** Required fields no stock of the current snapshot has. */
  missing_inputs: string[];
}

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
 * `meta.explain` of a screen that matched nothing: the universe's size, the stocks left after
 * each top-level condition in turn, and the fields the screen reads that too few stocks have.
 */
export interface ScreenExplanation {
  /** Stocks in the universe (market, sectors, exclusions) before any condition. */
  universe: number;
  /** Each `and` term of the expression, then each range filter, with the stocks left after it and those before. */
  steps: { condition: string; remaining: number }[];
  /** Fields known for under half of the universe, and what to load so they are. */
  coverage: { field: string; known: number; of: number; remedy: string }[];
}

/** The body of a screen answer: the envelope plus the spec's shape-B top-level fields (`stocks` is `data`). */
export interface ScreenBody {
  status: 'success';
  data: ScreenItem[];
  stocks: ScreenItem[];
  query_time_ms: number;
  filters_applied: FiltersApplied;
  /** Names of required inputs no stock has (templates on data without financials), with a message. */
  missing_inputs?: string[];
  message?: string;
  meta: {
    timestamp: string;
    request_id: string;
    total: number;
    page: number;
    per_page: number;
    total_pages: number;
    snapshot_version: string;
    cached: boolean;
    /** Present when nothing matched: why. */
    explain?: ScreenExplanation;
  };
}
