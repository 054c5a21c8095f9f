/**
 * The screening query's vocabulary: what a validated screen is. Its own module so that the
 * parts of the engine (select, sort-rows, templates) can name it without importing the engine.
 */
import type { Market } from '../../kernel/records.js';
import type { ParsedExpression } from '../language/expression.js';
import type { StockFlag } from '../engine/snapshot.js';
import type { GroupBy } from '../language/expression-functions.js';

/** A formula column: a name and a numeric expression over indicators and earlier columns. */
export interface ColumnDefinition {
  name: string;
  expression: string;
}

/** One factor of a score: an indicator or column, ranked descending (larger is better) or ascending. */
export interface ScoreFactor {
  field: string;
  weight: number;
  direction: 'asc' | 'desc';
}

/** The `score` column: the weighted mean of its factors' percentile ranks (0–100). */
export interface ScoreDefinition {
  factors: ScoreFactor[];
  /** Rank each factor within its sector, industry or market instead of the whole universe. */
  by?: GroupBy;
}

/** Which stocks are eligible before any filter. Absent or empty lists do not restrict. */
export interface Universe {
  market?: Market;
  sectors?: string[];
  industries?: string[];
  codes?: string[];
  exclude?: StockFlag[];
}

/** An inclusive range on one indicator; a null value fails it. */
export interface RangeFilter {
  field: string;
  min?: number;
  max?: number;
}

/** One sort key. */
export interface SortKey {
  field: string;
  direction: 'asc' | 'desc';
}

/** A complete, validated screen. */
export interface ScreenQuery {
  universe: Universe;
  filters: RangeFilter[];
  expression?: string;
  sort: SortKey[];
  /** 1-based. */
  page: number;
  per_page: number;
  /** Extra columns to return. */
  fields: string[];
  /** Formula columns, in definition order (each may use the ones before it). */
  columns?: ColumnDefinition[];
  /** The `score` column, computed after `columns`. */
  score?: ScoreDefinition;
  /** Screen the market as known on this date (YYYY-MM-DD); absent: the latest snapshot. */
  as_of?: string;
}
