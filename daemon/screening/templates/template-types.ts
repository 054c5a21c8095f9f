/** What a predefined screen is, apart from the templates themselves (template-definitions.ts) and their use (templates.ts). */
import type { ColumnDefinition, RangeFilter, ScoreDefinition, SortKey, Universe } from '../request/query-types.js';

/**
 * The screen part of a template: everything of a ScreenQuery but paging and output columns.
 * A type alias, not an interface, so that it is a JSON object to the wire's template schema.
 */
export type TemplateQuery = {
  universe?: Universe;
  filters?: RangeFilter[];
  expression?: string;
  /** Formula columns. */
  columns?: ColumnDefinition[];
  /** The `score` column. */
  score?: ScoreDefinition;
  sort?: SortKey[];
  per_page?: number;
};

/** A predefined screen. `required_fields` are the indicators its filters and expression read. */
export interface ScreenTemplate {
  id: string;
  name_ko: string;
  name_en: string;
  description: string;
  query: TemplateQuery;
  required_fields: readonly string[];
}

/** What the body of `POST /screen/templates/{id}` may change. `market: 'ALL'` lifts the template's market. */
export interface TemplateOverrides {
  market?: 'KOSPI' | 'KOSDAQ' | 'ALL';
  sort?: SortKey[];
  page?: number;
  per_page?: number;
  fields?: string[];
  /** Screen as of this date. */
  as_of?: string;
}
