import { describe, it, expect } from 'vitest';
import { ohlcvLoader } from '../../../loaders/ohlcv.js';

const CSV = [
  'Date,Open,High,Low,Close,Volume,Change',
  '2026-03-19,198000,203000,197500,200500,30000000,0.012',
  '2026-03-20,202000,202500,199000,199400,35279762,-0.0055',
  '2026-03-21,1,1,1,1,1,0', // a Saturday
  '2026-03-18,0,0,0,9900,0,0', // halted day: last close only
].join('\n');

describe('ohlcv', () => {
  it('takes the code from the file name and estimates trading value from the typical price', () => {
    const result = ohlcvLoader.parse(CSV, '/h/005930.csv', { maxBadRatio: 0.5 });
    expect(result.bars[1]).toEqual({
      stock_code: '005930', trade_date: '2026-03-20', open_price: 202_000, high_price: 202_500, low_price: 199_000,
      close_price: 199_400, volume: 35_279_762,
      // 35,279,762 × (202,500 + 199,000 + 199,400) / 3 = 35,279,762 × 200,300 = 7,066,536,328,600
      trading_value: 7_066_536_328_600, market_cap: null, shares_outstanding: null,
    });
  });

  it('turns a zero-price, zero-volume row into a halt and rejects a weekend row', () => {
    const result = ohlcvLoader.parse(CSV, '/h/005930.csv', { maxBadRatio: 0.5 });
    expect(result.halts).toEqual([{ stock_code: '005930', trade_date: '2026-03-18', last_close: 9_900, market_cap: null, shares_outstanding: null }]);
    expect(result.rejected).toEqual([{ file: '/h/005930.csv', line: 4, reason: '2026-03-21 is not a KRX trading day' }]);
    expect(result.rows_ok).toBe(3);
  });

  it('uses Amount when present, the code option, and case-insensitive headers', () => {
    const csv = 'date,open,high,low,close,volume,amount\n20260320,100,110,95,105,10,1040\n';
    const result = ohlcvLoader.parse(csv, 'prices.csv', { code: '0126Z0' });
    expect(result.bars[0]).toMatchObject({ stock_code: '0126Z0', trade_date: '2026-03-20', trading_value: 1_040 });
  });

  it('refuses a file without a code', () => {
    expect(() => ohlcvLoader.parse(CSV, 'prices.csv', {})).toThrow(/no stock code/);
  });
});
