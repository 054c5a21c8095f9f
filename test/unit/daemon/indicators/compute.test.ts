import { describe, expect, it } from 'vitest';
import {
  chunked,
  computeMarketIndicators,
  computeStockIndicators,
  type StockSeries,
} from '../../../../daemon/indicators/compute.js';
import { INDICATOR_IDS } from '../../../../daemon/indicators/registry.js';
import type { DailyBar, IndexBar } from '../../../../daemon/kernel/records.js';
import { expectNear } from './expect-close.js';
import { companyA } from './financial-fixtures.js';

/** n consecutive calendar dates from `start` (the calculations only need ordered trading dates). */
function dates(start: string, n: number): string[] {
  const t0 = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => new Date(t0 + i * 86_400_000).toISOString().slice(0, 10));
}

/** Bars with close = 1000 + 10·i, high/low = close ± 5, volume 1000. */
function linearBars(code: string, days: readonly string[]): DailyBar[] {
  return days.map((trade_date, i) => {
    const close = 1000 + 10 * i;
    return {
      stock_code: code,
      trade_date,
      open_price: close - 2,
      high_price: close + 5,
      low_price: close - 5,
      close_price: close,
      volume: 1000,
      trading_value: close * 1000,
      market_cap: null,
      shares_outstanding: null,
    };
  });
}

/** Index closes 2000 × 1.001^i on the same dates. */
function indexBars(days: readonly string[]): IndexBar[] {
  return days.map((trade_date, i) => ({
    market: 'KOSPI',
    trade_date,
    open: null,
    high: null,
    low: null,
    close: 2000 * 1.001 ** i,
    volume: null,
    trading_value: null,
  }));
}

// 300 days from 2023-10-01: the last bar is 2024-07-26 (index 299, close 3990);
// the last 2023 bar is 2023-12-31 (index 91, close 1910).
const DAYS = dates('2023-10-01', 300);
const AS_OF = DAYS[299] ?? '';

function stock(overrides: Partial<StockSeries> = {}): StockSeries {
  return {
    code: '000001',
    market: 'KOSPI',
    bars: linearBars('000001', DAYS),
    financials: companyA(),
    shares_outstanding: 100_000,
    last_close: null,
    halted: false,
    ...overrides,
  };
}

describe('computeStockIndicators', () => {
  const values = computeStockIndicators(stock(), indexBars(DAYS), AS_OF);

  it('returns exactly the registry ids, each a finite number or null', () => {
    expect(Object.keys(values).sort()).toEqual([...INDICATOR_IDS].sort());
    for (const v of Object.values(values)) expect(v === null || Number.isFinite(v)).toBe(true);
  });

  it('computes price, liquidity and market cap from the latest bar', () => {
    expect(values.close).toBe(3990);
    expect(values.change).toBe(10);
    expectNear(values.change_percent, (10 / 3980) * 100, 1e-9);
    expect(values.relative_volume).toBe(1); // 1000 / mean of 20 × 1000
    expect(values.market_cap).toBe(399_000_000); // 3990 × 100,000
    expectNear(values.turnover, 1, 1e-12); // 1000 / 100,000 × 100
  });

  it('computes trend values on the linear series by hand', () => {
    expect(values.sma_5).toBe(3970); // mean of 3950..3990
    expect(values.sma_20).toBe(3895); // mean of 3800..3990
    expect(values.ma_alignment).toBe(1); // rising prices: sma_5 > sma_20 > sma_60 > sma_120
    expect(values.golden_cross_20_60).toBe(0);
    expect(values.rsi_14).toBe(100); // no losses
    expect(values.high_52w).toBe(3995); // last high
    expect(values.low_52w).toBe(1475); // index 48: 1480 − 5
    expectNear(values.return_ytd, (3990 / 1910 - 1) * 100, 1e-9);
    expectNear(values.return_1w, (3990 / 3940 - 1) * 100, 1e-9);
  });

  it('computes relative strength against the aligned index', () => {
    // stock 3360 → 3990 = +18.75%; index 1.001^63 − 1 = +6.4993%
    expectNear(values.rs_3m, 18.75 - (1.001 ** 63 - 1) * 100, 1e-9);
  });

  it('combines price and statements for valuation (Company A, TTM net profit 40,000)', () => {
    expectNear(values.per, 399_000_000 / 40_000, 1e-6);
    expect(values.piotroski_f_score).toBe(7);
    expect(values.value_score).toBeNull(); // cross-sectional, filled by the market pass
  });

  it('prefers the market cap reported on the latest bar', () => {
    const bars = linearBars('000001', DAYS);
    const last = bars[bars.length - 1];
    if (last) last.market_cap = 123_456_789;
    expect(computeStockIndicators(stock({ bars }), undefined, AS_OF).market_cap).toBe(123_456_789);
  });

  it('falls back to the filings when the listing has no share count', () => {
    // companyA's latest filing reports 1,050 shares.
    expect(computeStockIndicators(stock({ shares_outstanding: null }), undefined, AS_OF).shares_outstanding).toBe(1_050);
  });

  it('is null where shares are zero or index data is missing', () => {
    const financials = companyA().map((q) => ({ ...q, shares_outstanding: 0 }));
    const v = computeStockIndicators(stock({ shares_outstanding: 0, financials }), undefined, AS_OF);
    expect(v.shares_outstanding).toBeNull();
    expect(v.market_cap).toBeNull();
    expect(v.turnover).toBeNull();
    expect(v.eps).toBeNull();
    expect(v.per).toBeNull();
    expect(v.rs_3m).toBeNull();
    expect(v.beta_250).toBeNull();
  });

  it('leaves windowed indicators null with too little history', () => {
    const v = computeStockIndicators(stock({ bars: linearBars('000001', DAYS.slice(0, 10)) }), undefined, DAYS[9] ?? '');
    expect(v.close).toBe(1090);
    expect(v.sma_5).toBe(1070);
    for (const id of ['sma_20', 'rsi_14', 'macd', 'atr_14', 'bb_upper', 'return_1m', 'high_52w', 'adx_14'] as const) {
      expect(v[id], id).toBeNull();
    }
  });

  it('ignores bars dated after as_of', () => {
    expect(computeStockIndicators(stock(), undefined, DAYS[200] ?? '').close).toBe(3000);
  });
});

describe('halted stocks', () => {
  // Halted today: the last bar (close 3990) is older and a newer last close of 4000 is known.
  const v = computeStockIndicators(stock({ halted: true, last_close: 4000 }), undefined, '2024-07-29');

  it('uses the last close, zero volume and no change', () => {
    expect(v.close).toBe(4000);
    expect(v.volume).toBe(0);
    expect(v.trading_value).toBe(0);
    expect(v.change).toBe(0);
    expect(v.open).toBeNull();
    expect(v.market_cap).toBe(400_000_000);
    expect(v.relative_volume).toBe(0);
  });

  it('reports no events for the day and still computes history-based values', () => {
    expect(v.limit_up).toBe(0);
    expect(v.breakout_20).toBe(0);
    expect(v.sma_5).toBe(3970);
  });

  it('falls back to the last bar when no last close is given', () => {
    expect(computeStockIndicators(stock({ halted: true }), undefined, '2024-07-29').close).toBe(3990);
  });
});

describe('computeMarketIndicators', () => {
  it('computes every stock, reports progress and fills the cross-sectional scores', () => {
    const loss = companyA().map((q) => ({ ...q, net_profit: -1_000, operating_profit: -500 }));
    const stocks = [
      stock({ code: '000001' }),
      stock({ code: '000002', financials: loss }),
      stock({ code: '000003', market: 'KOSDAQ', financials: [], bars: linearBars('000003', DAYS.slice(0, 30)) }),
    ];
    const progress: [number, number][] = [];
    const out = computeMarketIndicators(
      { as_of: AS_OF, stocks, index: { KOSPI: indexBars(DAYS) } },
      { onProgress: (done, total) => progress.push([done, total]) },
    );
    expect(progress).toEqual([[1, 3], [2, 3], [3, 3]]);
    expect([...out.keys()]).toEqual(['000001', '000002', '000003']);
    for (const v of out.values()) expect(Object.keys(v).sort()).toEqual([...INDICATOR_IDS].sort());
    const a = out.get('000001');
    const b = out.get('000002');
    expect(b?.per).toBeNull(); // loss-making
    // Same prices, better statements: Company A out-scores the loss-maker on value.
    expect(a?.value_score ?? -1).toBeGreaterThan(b?.value_score ?? 101);
    expect(a?.magic_formula_rank).toBe(1);
    expect(b?.magic_formula_rank).toBeNull(); // negative EBIT
    expect(out.get('000003')?.rs_3m).toBeNull(); // no KOSDAQ index given
  });
});

describe('chunked', () => {
  it('splits into consecutive slices', () => {
    expect([...chunked([1, 2, 3, 4, 5], 2)]).toEqual([[1, 2], [3, 4], [5]]);
    expect([...chunked([], 3)]).toEqual([]);
  });
});
