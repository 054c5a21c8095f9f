/**
 * Types of the indicator registry and the helper the entry lists are written with.
 */

/** Units an indicator value can be expressed in. */
export const INDICATOR_UNITS = ['KRW', '%', 'ratio', 'x', 'shares', 'count', 'flag', 'score', 'rank', 'index'] as const;
/** Unit of an indicator value. */
export type IndicatorUnit = (typeof INDICATOR_UNITS)[number];

/** Indicator categories, in display order. */
export const INDICATOR_CATEGORIES = [
  'price',
  'returns',
  'trend',
  'oscillator',
  'volatility',
  'volume',
  'event',
  'valuation',
  'profitability',
  'growth',
  'score',
] as const;
/** Category of an indicator. */
export type IndicatorCategory = (typeof INDICATOR_CATEGORIES)[number];

/** Inputs an indicator is computed from. */
export const INDICATOR_INPUTS = ['prices', 'financials', 'index', 'cross_section'] as const;
/** One input kind. */
export type IndicatorInput = (typeof INDICATOR_INPUTS)[number];

/** One registry entry: what an indicator id means and what it needs. */
export interface IndicatorDefinition<I extends string = string> {
  readonly id: I;
  readonly label_ko: string;
  readonly label_en: string;
  readonly unit: IndicatorUnit;
  readonly category: IndicatorCategory;
  readonly inputs: readonly IndicatorInput[];
  /** Trading days of price history needed; 0 when none. */
  readonly min_history: number;
  /** One-line English definition. */
  readonly definition: string;
}

/** Builds entries of one category; the id's literal type is kept for the IndicatorId union. */
export type IndicatorBuilder = <const I extends string>(
  id: I,
  label_ko: string,
  label_en: string,
  unit: IndicatorUnit,
  min_history: number,
  definition: string,
  inputs?: readonly IndicatorInput[],
) => IndicatorDefinition<I>;

/** Returns a builder for entries of `category` whose inputs default to `defaultInputs`. */
export function indicatorGroup(category: IndicatorCategory, defaultInputs: readonly IndicatorInput[]): IndicatorBuilder {
  return (id, label_ko, label_en, unit, min_history, definition, inputs = defaultInputs) =>
    Object.freeze({ id, label_ko, label_en, unit, category, inputs, min_history, definition });
}
