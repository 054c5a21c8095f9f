import { describe, it, expect } from 'vitest';
import type { DailyBar, HaltRecord, StockRecord } from '../../../../../daemon/kernel/records.js';
import { createStockLoader } from '../../../../../daemon/market/feed/stock-loader.js';

const stock = (code: string): StockRecord => ({
  code, name: `N${code}`, name_english: null, market: 'KOSDAQ', sector: 'S', industry: null, listing_date: null, shares_outstanding: null,
  board: null, settle_month: null, is_administrative: false, is_spac: false, is_preferred: false,
});
const bar = (code: string, trade_date: string, close: number, volume: number): DailyBar => ({
  stock_code: code, trade_date, open_price: close, high_price: close, low_price: close, close_price: close, volume, trading_value: close * volume, market_cap: null, shares_outstanding: null,
});

describe('createStockLoader', () => {
  it('bases each stock on its last close, averages its volume, flags halts, and skips stocks without a close', async () => {
    const bars = new Map([
      ['000001', [bar('000001', '2026-03-05', 10_000, 100), bar('000001', '2026-03-06', 10_100, 300)]],
      ['000002', [bar('000002', '2026-03-05', 5_000, 50)]],
    ]);
    const halts = new Map<string, HaltRecord>([['000002', { stock_code: '000002', trade_date: '2026-03-06', last_close: 5_000, market_cap: null, shares_outstanding: null }]]);
    const load = createStockLoader({
      stocks: { all: async () => [stock('000001'), stock('000002'), stock('000003')] },
      prices: { recentBars: async () => bars, latestHalts: async () => halts },
    });
    expect(await load()).toEqual([
      // (100 + 300) / 2 = 200 shares a day
      { code: '000001', name: 'N000001', market: 'KOSDAQ', sector: 'S', prev_close: 10_100, close_date: '2026-03-06', avg_volume: 200 },
      { code: '000002', name: 'N000002', market: 'KOSDAQ', sector: 'S', prev_close: 5_000, close_date: '2026-03-06', avg_volume: 50, halted: true },
    ]);
  });
});
