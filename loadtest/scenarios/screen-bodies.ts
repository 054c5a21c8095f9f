/**
 * Request bodies of the screening scenarios, in both shapes of the spec's "Screening
 * request": shape A (nested `filters`, `sort` array) and shape B (flat `min_`/`max_` keys).
 * The two shapes of one query select the same stocks. Unless the cache is wanted, each
 * body moves `roe`'s minimum by a random amount under a millionth, so no two requests
 * share a cache key while the selection stays the same in practice.
 */

/** A body factory: call it once per request. */
export type BodyFactory = () => Record<string, unknown>;

/** The two shapes of one query, alternated by the scenario. */
export interface ScreenBodies {
  shapeA: BodyFactory;
  shapeB: BodyFactory;
}

/** Base minimum ROE (%) of the simple screen. */
export const SIMPLE_MIN_ROE = 5;
/** Base minimum ROE (%) of the complex screen. */
export const COMPLEX_MIN_ROE = 0;
/** The complex screen's expression (field-vs-field comparison plus an or). */
export const COMPLEX_EXPRESSION = 'close > sma_20 * 0.9 and (per < 30 or pbr < 3)';

/**
 * A value source: fixed when `vary` is false, else base plus a varying part under a millionth.
 * `spread` gives a number in [0, 1) per request; by default a golden-ratio sequence from a
 * random start: its values never repeat within a run (independent random draws did, about once
 * in two hundred runs of a thousand requests, turning a miss into a hit), and two runs within the
 * cache's 5 minutes start apart, so they do not send the same bodies either.
 */
export function varying(base: number, vary: boolean, spread: () => number = goldenSequence()): () => number {
  return () => (vary ? base + (1 + spread()) * 1e-7 : base);
}

/** (start + n·φ) mod 1 for n = 0, 1, 2…: distinct values spread evenly over [0, 1). */
function goldenSequence(start = Math.random()): () => number {
  let x = start;
  return () => {
    const value = x;
    x = (x + 0.6180339887498949) % 1;
    return value;
  };
}

/** Simple screen: one range filter (minimum ROE), 50 results. */
export function simpleBodies(vary: boolean): ScreenBodies {
  const roe = varying(SIMPLE_MIN_ROE, vary);
  return {
    shapeA: () => ({ filters: { roe: { min: roe() } }, limit: 50 }),
    shapeB: () => ({ min_roe: roe(), limit: 50 }),
  };
}

/** Complex screen: six range filters, an expression and a two-key sort, 50 results. */
export function complexBodies(vary: boolean): ScreenBodies {
  const roe = varying(COMPLEX_MIN_ROE, vary);
  return {
    shapeA: () => ({
      filters: {
        per: { min: 0, max: 40 },
        pbr: { max: 6 },
        roe: { min: roe() },
        market_cap: { min: 1e9 },
        volume: { min: 1 },
        rsi_14: { min: 10, max: 90 },
      },
      expression: COMPLEX_EXPRESSION,
      sort: [
        { field: 'roe', direction: 'desc' },
        { field: 'market_cap', direction: 'desc' },
      ],
      limit: 50,
    }),
    shapeB: () => ({
      min_per: 0,
      max_per: 40,
      max_pbr: 6,
      min_roe: roe(),
      min_market_cap: 1e9,
      min_volume: 1,
      min_rsi_14: 10,
      max_rsi_14: 90,
      expression: COMPLEX_EXPRESSION,
      sort: 'roe:desc,market_cap:desc',
      limit: 50,
    }),
  };
}
