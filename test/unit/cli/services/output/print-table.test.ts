import { describe, expect, it } from 'vitest';
import { changeCell } from '../../../../../cli/services/output/number-format.js';
import { toMarketTable } from '../../../../../cli/services/output/print-table.js';

describe('market tables', () => {
  it('turns change tones into movements (rise, fall) and keeps plain and missing cells', () => {
    const table = toMarketTable({ headers: ['CODE', 'CHG'], rows: [['005930', changeCell(1.5)], ['000660', changeCell(-0.59)], [null, changeCell(null)]] }, [false, true]);
    expect(table.right).toEqual([false, true]);
    expect(table.rows).toEqual([
      [{ text: '005930' }, { text: '+1.50%', move: 'up' }],
      [{ text: '000660' }, { text: '-0.59%', move: 'down' }],
      [{ text: '' }, { text: '-', muted: true }],
    ]);
  });
});
