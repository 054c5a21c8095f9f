import { describe, expect, it } from 'vitest';
import { inkRenderers } from '../../../../cli/ui/render.js';

describe('Ink table and record views', () => {
  it('aligns columns by display width, counting Hangul as two cells', () => {
    const text = inkRenderers.table({ headers: ['NAME', 'TIER'], rows: [['김철수', 'pro'], ['ab', 'free']] }, { color: false, columns: 80 });
    // Column 1 is as wide as its widest cell: "김철수" = 3 × 2 = 6 cells; then a 2-cell gap.
    expect(text.split('\n')).toEqual(['NAME    TIER', '김철수  pro', 'ab      free']);
  });

  it('keeps rows aligned when a cell is empty', () => {
    const text = inkRenderers.table({ headers: ['A', 'B', 'C'], rows: [['1', null, '3'], ['44', 'x', '']] }, { color: false, columns: 80 });
    expect(text.split('\n').map((l) => l.trimEnd())).toEqual(['A   B  C', '1      3', '44  x']);
  });

  it('shows a record as label/value lines', () => {
    const text = inkRenderers.record({ fields: [['id', 'u1'], ['email', 'a@example.com']] }, { color: false, columns: 80 });
    expect(text.split('\n')).toEqual(['id     u1', 'email  a@example.com']);
  });

  it('strips escape sequences when colour is off and keeps them when on', () => {
    const red = '\u001b[31mdown\u001b[39m';
    expect(inkRenderers.table({ headers: ['S'], rows: [[red]] }, { color: false, columns: 80 })).not.toContain('\u001b[');
    expect(inkRenderers.table({ headers: ['S'], rows: [[red]] }, { color: true, columns: 80 })).toContain('\u001b[31m');
  });
});
