import { describe, expect, it } from 'vitest';
import {
  FLAG_BITS,
  buildSnapshot,
  dictValueAt,
  emptySnapshot,
  isNullAt,
  marketAt,
  quoteAt,
  valueAt,
} from '../../../../../daemon/screening/engine/snapshot.js';
import { FIELDS, ROWS, fixtureSnapshot } from '../fixture.js';

describe('buildSnapshot', () => {
  it('orders rows by stock code whatever the input order', () => {
    const s = fixtureSnapshot();
    expect(s.codes).toEqual(['000010', '000020', '000030', '000040', '000045', '000050', '000080', '0126Z0']);
    expect(s.size).toBe(8);
    expect(s.rowByCode.get('0126Z0')).toBe(7);
    expect(s.names[7]).toBe('바다바이오');
  });

  it('keeps values per column and marks nulls in the bitmap', () => {
    const s = fixtureSnapshot();
    const per = s.columns.get('per')!;
    // per: 5, 20, null, 10, 4, null (absent key), 6, 15
    expect(Array.from({ length: 8 }, (_, i) => valueAt(s, 'per', i))).toEqual([5, 20, null, 10, 4, null, 6, 15]);
    expect([2, 5].every((i) => isNullAt(per, i))).toBe(true);
    expect([0, 1, 3, 4, 6, 7].some((i) => isNullAt(per, i))).toBe(false);
    expect(per.count).toBe(6);
    // Null bits of rows 2 and 5 in the first byte: 0b0010_0100.
    expect(per.nulls[0]).toBe(0b0010_0100);
  });

  it('reads a stock\'s quote by code past the first byte of the null bitmap, with nulls where the source had none', () => {
    // Given 20 stocks where every third has no volume and stock 13 no price
    const base = ROWS[1]!;
    const rows = Array.from({ length: 20 }, (_, i) => ({
      ...base, code: String(200_000 + i), name: `S${i}`,
      values: { close: i === 13 ? null : 1000 + i, change_percent: i - 10, volume: i % 3 === 0 ? null : i * 100 },
    }));
    const s = buildSnapshot(rows, ['close', 'change_percent', 'volume'], 'q');
    // Then each quote is exactly the row's own values
    for (let i = 0; i < 20; i++) {
      expect(quoteAt(s, String(200_000 + i))).toEqual({
        name: `S${i}`, price: i === 13 ? null : 1000 + i, change_percent: i - 10, volume: i % 3 === 0 ? null : i * 100,
      });
    }
    // And a stock the snapshot does not hold has no quote
    expect(quoteAt(s, '999999')).toBeNull();
  });

  it('treats NaN and Infinity as null and ignores keys outside the field list', () => {
    const base = ROWS[1]!;
    const s = buildSnapshot([{ ...base, values: { per: Number.NaN, pbr: Number.POSITIVE_INFINITY, roe: 3, extra: 9 } }], ['per', 'pbr', 'roe'], 'x');
    expect(valueAt(s, 'per', 0)).toBeNull();
    expect(valueAt(s, 'pbr', 0)).toBeNull();
    expect(valueAt(s, 'roe', 0)).toBe(3);
    expect(s.columns.has('extra')).toBe(false);
    expect(valueAt(s, 'extra', 0)).toBeNull();
  });

  it('dictionary-encodes market, sector and industry', () => {
    const s = fixtureSnapshot();
    expect(marketAt(s, 0)).toBe('KOSPI');
    expect(marketAt(s, 7)).toBe('KOSDAQ');
    // 반도체 appears on rows 0, 3, 4 and is stored once.
    expect(s.sector.dict.filter((d) => d === '반도체')).toHaveLength(1);
    expect(s.sector.ids[0]).toBe(s.sector.ids[3]);
    expect(dictValueAt(s.sector, 4)).toBe('반도체');
    expect(dictValueAt(s.sector, 5)).toBeNull();
    expect(dictValueAt(s.industry, 6)).toBe('건설업');
  });

  it('packs universe flags into a bitmask', () => {
    const s = fixtureSnapshot();
    expect(s.flags[4]).toBe(FLAG_BITS.preferred);
    expect(s.flags[5]).toBe(FLAG_BITS.spac);
    expect(s.flags[6]).toBe(FLAG_BITS.halted);
    expect(s.flags[7]).toBe(FLAG_BITS.administrative);
    expect(s.flags[0]).toBe(0);
  });

  it('is frozen and carries its version and field list', () => {
    const s = fixtureSnapshot();
    expect(Object.isFrozen(s)).toBe(true);
    expect(s.version).toBe('v1');
    expect(s.fields).toEqual([...FIELDS]);
  });

  it('rejects two rows with the same code', () => {
    expect(() => buildSnapshot([ROWS[0]!, ROWS[0]!], FIELDS, 'x')).toThrow(/duplicate stock code 0126Z0/);
  });

  it('builds an empty snapshot with all-null columns', () => {
    const s = emptySnapshot(['per']);
    expect(s.size).toBe(0);
    expect(s.columns.get('per')?.count).toBe(0);
  });
});
