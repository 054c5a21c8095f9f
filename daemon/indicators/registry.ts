/**
 * The indicator registry: the contract between the indicator calculations,
 * screening and templates. Every computed value object has exactly these ids.
 */
import {
  PROFITABILITY_INDICATORS,
  GROWTH_INDICATORS,
  SCORE_INDICATORS,
  VALUATION_INDICATORS,
} from './registry-fundamental.js';
import {
  EVENT_INDICATORS,
  OSCILLATOR_INDICATORS,
  PRICE_INDICATORS,
  RETURN_INDICATORS,
  TREND_INDICATORS,
  VOLATILITY_INDICATORS,
  VOLUME_INDICATORS,
} from './registry-technical.js';
import type { IndicatorDefinition } from './registry-types.js';

export type {
  IndicatorCategory,
  IndicatorDefinition,
  IndicatorInput,
  IndicatorUnit,
} from './registry-types.js';
export { INDICATOR_CATEGORIES, INDICATOR_INPUTS, INDICATOR_UNITS } from './registry-types.js';

const ALL = [
  ...PRICE_INDICATORS,
  ...RETURN_INDICATORS,
  ...TREND_INDICATORS,
  ...OSCILLATOR_INDICATORS,
  ...VOLATILITY_INDICATORS,
  ...VOLUME_INDICATORS,
  ...EVENT_INDICATORS,
  ...VALUATION_INDICATORS,
  ...PROFITABILITY_INDICATORS,
  ...GROWTH_INDICATORS,
  ...SCORE_INDICATORS,
] as const;

/** Every indicator id (snake_case). */
export type IndicatorId = (typeof ALL)[number]['id'];

/** All indicator definitions, grouped by category in display order. */
export const INDICATORS: readonly IndicatorDefinition<IndicatorId>[] = Object.freeze(ALL);

/** All indicator ids, in registry order. */
export const INDICATOR_IDS: readonly IndicatorId[] = Object.freeze(ALL.map((d) => d.id));

const BY_ID: ReadonlyMap<string, IndicatorDefinition<IndicatorId>> = new Map(ALL.map((d) => [d.id, d]));

/** Whether `id` is a registered indicator id. */
export function isIndicatorId(id: string): id is IndicatorId {
  return BY_ID.has(id);
}

/** The definition of an indicator, or undefined when `id` is not registered. */
export function getIndicator(id: string): IndicatorDefinition<IndicatorId> | undefined {
  return BY_ID.get(id);
}

/** Values keyed by indicator id; null where a value is undefined. Flags are 1/0. */
export type IndicatorValues = Record<string, number | null>;

/** Partial values keyed by typed ids, as produced by one calculation group. */
export type IndicatorPatch = Partial<Record<IndicatorId, number | null>>;

/** A fresh value object holding every registry id, all null. */
export function emptyIndicatorValues(): IndicatorValues {
  const out: IndicatorValues = {};
  for (const id of INDICATOR_IDS) out[id] = null;
  return out;
}
