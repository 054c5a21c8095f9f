/**
 * How screen results, fields and templates are shown. Screen columns are the item keys
 * (identity and price columns, then every filtered, sorted and requested field), named
 * by field id so piped output can be selected by the same names the flags use.
 */
import type { ScreenBody, ScreenField, ScreenItem, ScreenTemplate, ScreenExplanation } from '../../../daemon/contract/screening.js';
import { groupThousands, valueCell } from '../output/number-format.js';
import type { CellInput, TableData } from '../output/output.js';

/** Columns every screen item has (daemon BASE_ITEM_FIELDS). */
export const BASE_SCREEN_COLUMNS = ['code', 'name', 'market', 'sector', 'close', 'change_percent', 'market_cap'] as const;
const TEXT_COLUMNS = new Set(['code', 'name', 'market', 'sector', 'industry', 'name_english', 'board']);

/** The columns of a page: the first item's keys, or the base columns for an empty page. */
export function screenColumns(items: readonly ScreenItem[]): string[] {
  const first = items[0];
  return first ? Object.keys(first) : [...BASE_SCREEN_COLUMNS];
}

/** Numeric (right-aligned) columns of a screen table. */
export function screenRight(headers: readonly string[]): boolean[] {
  return headers.map((h) => !TEXT_COLUMNS.has(h.toLowerCase()));
}

/**
 * Items as a table. `human`: numbers with units (from /screen/fields) and coloured
 * changes; otherwise raw values (empty for null) for TSV.
 */
export function screenTable(items: readonly ScreenItem[], human: boolean, units: ReadonlyMap<string, string> = new Map()): TableData {
  const columns = screenColumns(items);
  return {
    // Upper case like every other table's header; the field id otherwise, so scripts select by the flags' names.
    headers: columns.map((c) => c.toUpperCase()),
    rows: items.map((item) =>
      columns.map((c): CellInput => {
        const value = item[c];
        if (!human || TEXT_COLUMNS.has(c)) return value;
        return valueCell(c, value, units.get(c) ?? (c === 'close' || c === 'market_cap' ? 'KRW' : c === 'change_percent' ? '%' : undefined));
      }),
    ),
  };
}

/** The stderr line under a screen: `12 matches · page 1 of 1 · 0.42 ms (cached)`. */
export function screenSummary(body: ScreenBody): string {
  const { total, page, total_pages: pages, cached } = body.meta;
  const parts = [`${groupThousands(total)} match${total === 1 ? '' : 'es'}`, `page ${page} of ${Math.max(1, pages)}`];
  if (typeof body.query_time_ms === 'number') parts.push(`${body.query_time_ms} ms${cached ? ' (cached)' : ''}`);
  return parts.join(' · ');
}

/**
 * Why a screen matched nothing, as lines for stderr: the universe, the stocks left after each
 * condition in turn, and each field too few stocks have with what to load (none without `explain`).
 */
export function explanationLines(explain: ScreenExplanation | undefined): string[] {
  if (!explain) return [];
  const width = Math.max(0, ...explain.steps.map((s) => s.condition.length));
  return [
    `why nothing matched: ${groupThousands(explain.universe)} stock${explain.universe === 1 ? '' : 's'} in the universe, then`,
    ...explain.steps.map((s) => `  ${s.condition.padEnd(width)}  → ${groupThousands(s.remaining)} left`),
    ...explain.coverage.map((c) => `${c.field} is known for ${groupThousands(c.known)} of ${groupThousands(c.of)} stocks: ${c.remedy}`),
  ];
}

/** The field catalogue: ID CATEGORY UNIT LABEL_EN LABEL_KO COVERAGE DEFINITION. */
export function fieldsTable(fields: readonly ScreenField[]): TableData {
  return {
    headers: ['ID', 'CATEGORY', 'UNIT', 'LABEL_EN', 'LABEL_KO', 'COVERAGE', 'DEFINITION'],
    rows: fields.map((f) => [f.id, f.category, f.unit, f.label_en, f.label_ko, f.coverage, f.definition]),
  };
}

/** The templates: ID NAME_KO NAME_EN MISSING DESCRIPTION. */
export function templatesTable(templates: readonly ScreenTemplate[]): TableData {
  return {
    headers: ['ID', 'NAME_KO', 'NAME_EN', 'MISSING', 'DESCRIPTION'],
    rows: templates.map((t) => [t.id, t.name_ko, t.name_en, t.missing_inputs.length ? { text: t.missing_inputs.join(','), tone: 'bad' } : '', t.description]),
  };
}
