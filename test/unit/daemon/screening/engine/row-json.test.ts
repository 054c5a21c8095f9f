/**
 * Pages joined from pre-serialised rows are byte for byte what serialising the page's items
 * gives (the response and the result cache carry these bytes), for any rows, order and column
 * list, with or without a prefix; the fragments of one snapshot stay within their byte bound.
 */
import { describe, expect, it } from 'vitest';
import { buildItem } from '../../../../../daemon/screening/engine/query.js';
import { ROW_JSON_BYTES, rowsJson, rowsJsonBytes } from '../../../../../daemon/screening/engine/row-json.js';
import { fixtureSnapshot } from '../fixture.js';

const serialised = (snapshot: ReturnType<typeof fixtureSnapshot>, rows: number[], columns: string[]) =>
  Buffer.from(JSON.stringify(rows.map((row) => buildItem(snapshot, row, columns))));

describe('rowsJson', () => {
  it('gives the bytes of JSON.stringify of the items, for every order and column list', () => {
    // Given the eight-stock market (Korean names: multi-byte UTF-8, nulls, negative numbers)
    const snapshot = fixtureSnapshot();
    const lists = [
      ['code', 'name', 'market', 'sector', 'close', 'change_percent', 'market_cap'],
      ['code', 'name', 'market', 'sector', 'close', 'change_percent', 'market_cap', 'per', 'roe', 'industry', 'board', 'name_english'],
      ['code', 'name', 'market', 'sector', 'dividend_yield', 'no_such_field'],
    ];
    for (const columns of lists) {
      for (const rows of [[], [3], [7, 0, 5, 2], [0, 1, 2, 3, 4, 5, 6, 7], [6, 6]]) {
        // When the page is joined twice (the second time from the kept fragments)
        const first = rowsJson(snapshot, Int32Array.from(rows), columns);
        const again = rowsJson(snapshot, Int32Array.from(rows), columns);
        // Then both are exactly the serialised items
        const expected = serialised(snapshot, rows, columns);
        expect(first.equals(expected)).toBe(true);
        expect(again.equals(expected)).toBe(true);
      }
    }
  });

  it('writes the page after a prefix in the same buffer', () => {
    const snapshot = fixtureSnapshot();
    const columns = ['code', 'name', 'market', 'sector', 'per'];
    const prefix = Buffer.from('{"total":2}\n');
    const out = rowsJson(snapshot, Int32Array.from([1, 0]), columns, prefix);
    expect(out.subarray(0, prefix.length).equals(prefix)).toBe(true);
    expect(out.subarray(prefix.length).equals(serialised(snapshot, [1, 0], columns))).toBe(true);
  });

  it('keeps the fragments of a snapshot within the byte bound, dropping the column lists seen longest ago', () => {
    // Given a column list whose items are large (a long unknown field name per column)
    const snapshot = fixtureSnapshot();
    const all = Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
    const wide = (n: number) => ['code', ...Array.from({ length: 40 }, (_, k) => `f${n}_${k}_${'x'.repeat(2000)}`)];
    const perList = serialised(snapshot, [...all], wide(0)).length;
    const lists = Math.ceil(ROW_JSON_BYTES / perList) + 3;
    // When more such lists are joined than the bound holds
    for (let n = 0; n < lists; n++) rowsJson(snapshot, all, wide(n));
    // Then the bytes kept stay within it, and the pages are still right
    expect(rowsJsonBytes(snapshot)).toBeGreaterThan(0);
    expect(rowsJsonBytes(snapshot)).toBeLessThanOrEqual(ROW_JSON_BYTES);
    expect(rowsJson(snapshot, all, wide(0)).equals(serialised(snapshot, [...all], wide(0)))).toBe(true);
  });
});
