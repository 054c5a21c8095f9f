/**
 * An expression's mask over a snapshot holds exactly where its compiled predicate is TRUE
 * (never UNKNOWN), is shared by texts with the same canonical form, and is kept per snapshot.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, parseExpression } from '../../../../../daemon/screening/language/expression.js';
import { EXPRESSION_MASKS_PER_SNAPSHOT, expressionMask } from '../../../../../daemon/screening/language/expression-masks.js';
import { fixtureSnapshot } from '../fixture.js';

describe('expressionMask', () => {
  it('is 1 exactly where the predicate holds, nulls (UNKNOWN) included as 0', () => {
    const snapshot = fixtureSnapshot();
    for (const text of ['per < 10', 'not (per < 10)', 'per is null or roe > 11', "market = 'KOSDAQ' and close > sma_200", 'dividend_yield between 2 and 4']) {
      const parsed = parseExpression(text);
      const predicate = compileExpression(parsed, snapshot);
      const mask = expressionMask(snapshot, parsed);
      expect([...mask]).toEqual(Array.from({ length: snapshot.size }, (_, i) => (predicate(i) ? 1 : 0)));
    }
  });

  it('is shared by texts with one canonical form, and separate per snapshot', () => {
    const a = fixtureSnapshot();
    const b = fixtureSnapshot();
    const mask = expressionMask(a, parseExpression('per<10'));
    expect(expressionMask(a, parseExpression('PER   <  10'))).toBe(mask);
    expect(expressionMask(b, parseExpression('per<10'))).not.toBe(mask);
  });

  it('forgets the mask used longest ago past its bound', () => {
    const snapshot = fixtureSnapshot();
    const first = expressionMask(snapshot, parseExpression('per < 0.5'));
    for (let k = 1; k <= EXPRESSION_MASKS_PER_SNAPSHOT; k++) expressionMask(snapshot, parseExpression(`per < ${k + 0.5}`));
    // A new mask object: the first was dropped and is computed again (with the same bytes).
    const again = expressionMask(snapshot, parseExpression('per < 0.5'));
    expect(again).not.toBe(first);
    expect([...again]).toEqual([...first]);
  });
});
