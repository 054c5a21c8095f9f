/**
 * An expression's truth over a whole snapshot, computed once and kept beside it.
 *
 * A snapshot never changes once built, and an expression without cross-sectional terms reads
 * only its own row, so whether row i passes `close > sma_20 * 0.9 and (per < 30 or pbr < 3)` is
 * the same for every request on that snapshot. Screens repeat their expressions (templates,
 * presets, dashboards moving a bound), so the first screen with an expression evaluates it for
 * every row into one byte per row, and every later one reads that byte instead of compiling
 * the expression and running its closures per candidate.
 *
 * Keyed by the canonical text (equal for `per<10` and `PER < 10`), bounded per snapshot by
 * count; the mask seen longest ago is dropped first. Released with the snapshot (a WeakMap).
 */
import { compileExpression, type ParsedExpression } from './expression.js';
import type { Snapshot } from '../engine/snapshot.js';

/** Masks kept per snapshot (each one byte per stock: 256 × 2,700 stocks ≈ 0.7 MB). */
export const EXPRESSION_MASKS_PER_SNAPSHOT = 256;

const MASKS = new WeakMap<Snapshot, Map<string, Uint8Array>>();

/**
 * 1 at every row of `snapshot` where `parsed` is TRUE, 0 elsewhere (FALSE or UNKNOWN): what
 * compileExpression's predicate answers. Only for expressions without cross-sectional terms
 * (their values depend on the request's universe).
 */
export function expressionMask(snapshot: Snapshot, parsed: ParsedExpression): Uint8Array {
  let masks = MASKS.get(snapshot);
  if (masks === undefined) {
    masks = new Map();
    MASKS.set(snapshot, masks);
  }
  const known = masks.get(parsed.canonical);
  if (known !== undefined) {
    // Most recently used last.
    masks.delete(parsed.canonical);
    masks.set(parsed.canonical, known);
    return known;
  }
  const predicate = compileExpression(parsed, snapshot);
  const mask = new Uint8Array(snapshot.size);
  for (let i = 0; i < mask.length; i++) if (predicate(i)) mask[i] = 1;
  if (masks.size >= EXPRESSION_MASKS_PER_SNAPSHOT) masks.delete(masks.keys().next().value as string);
  masks.set(parsed.canonical, mask);
  return mask;
}
