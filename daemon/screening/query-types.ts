/**
 * The screening query's vocabulary: what a validated screen is. Its own module so that the
 * parts of the engine (select, sort-rows, templates) can name it without importing the engine.
 */
import type { Market } from '../market/records.js';
import type { ParsedExpression } from './expression.js';
import type { StockFlag } from './snapshot.js';

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
  /**
   * `expression` parsed, set by the request parser (or on first use) so it is parsed once per
   * request. Non-enumerable (see `keepParsed`): never serialised with the query, never compared.
   */
  readonly parsed?: ParsedExpression;
  sort: SortKey[];
  /** 1-based. */
  page: number;
  per_page: number;
  /** Extra columns to return. */
  fields: string[];
  /** Screen the market as known on this date (YYYY-MM-DD; issue 23); absent: the latest snapshot. */
  as_of?: string;
}
