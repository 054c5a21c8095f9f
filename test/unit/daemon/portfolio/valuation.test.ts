import { describe, expect, it } from 'vitest';
import { allocations, capBucket, rankHoldings, valueHoldings, type HoldingInput, type StockInfo } from '../../../../daemon/portfolio/valuation.js';

const holding = (id: string, code: string, quantity: number, average_price: number): HoldingInput => ({ id, code, quantity, average_price, acquired_at: '2025-01-02', note: null });
const A: StockInfo = { name: 'Alpha', market: 'KOSPI', sector: 'Tech', shares_outstanding: 100_000_000_000 };
const B: StockInfo = { name: 'Beta', market: 'KOSDAQ', sector: 'Bio', shares_outstanding: 10_000_000 };
const C: StockInfo = { name: 'Gamma', market: 'KOSPI', sector: 'Tech', shares_outstanding: null };

/*
 * A: 10 @ 95, price 99, change 0    → value 990, cost 950, P&L +40 (+4.2105%), day 0
 * B:  1 @ 1,000, price 1,068, −42   → value 1,068, cost 1,000, P&L +68 (+6.8%), day −42 (−42 / 1,110 = −3.7838%)
 * C:  5 @ 200, no price known       → valued at cost 1,000, P&L 0
 * Totals: value 3,058, cost 2,950, P&L 108 (108 / 2,950 = 3.6610%), day −42 / (3,058 + 42) = −1.3548%
 * Weights: 990 / 3,058 = 32.374%, 1,068 / 3,058 = 34.925%, 1,000 / 3,058 = 32.701%
 */
const { holdings, totals } = valueHoldings([
  { holding: holding('h1', '000001', 10, 95), stock: A, quote: { price: 99, change: 0, source: 'close', as_of: '2025-01-06' } },
  { holding: holding('h2', '000002', 1, 1000), stock: B, quote: { price: 1068, change: -42, source: 'live', as_of: '2025-01-06T01:00:00.000Z' } },
  { holding: holding('h3', '000003', 5, 200), stock: C, quote: null },
]);

describe('valuation', () => {
  it('values each holding at its current price', () => {
    const [a, b, c] = holdings;
    expect(a).toMatchObject({ name: 'Alpha', market_value: 990, cost: 950, unrealized_pnl: 40, day_change: 0, price_source: 'close' });
    expect(a!.unrealized_pnl_percent).toBeCloseTo(4.2105, 4);
    expect(b).toMatchObject({ market_value: 1068, cost: 1000, unrealized_pnl: 68, day_change: -42, price_source: 'live' });
    expect(b!.unrealized_pnl_percent).toBeCloseTo(6.8, 10);
    expect(b!.day_change_percent).toBeCloseTo(-3.7838, 4);
    expect(c).toMatchObject({ current_price: null, price_source: null, market_value: 1000, unrealized_pnl: 0, day_change: 0 });
    expect(holdings.map((h) => h.weight).map((w) => Math.round(w * 1000) / 1000)).toEqual([32.374, 34.925, 32.701]);
  });

  it('totals the portfolio', () => {
    expect(totals).toMatchObject({ holdings: 3, market_value: 3058, cost: 2950, unrealized_pnl: 108, day_change: -42 });
    expect(totals.unrealized_pnl_percent).toBeCloseTo(3.661, 3);
    expect(totals.day_change_percent).toBeCloseTo(-1.3548, 4);
  });

  it('allocates by stock, sector, market and market-cap bucket, largest first', () => {
    const a = allocations(holdings);
    expect(a.by_stock.map((s) => s.key)).toEqual(['000002', '000003', '000001']);
    // Tech = A 990 + C 1,000 = 1,990 (65.075%); Bio = 1,068
    expect(a.by_sector.map((s) => [s.key, s.value, s.holdings])).toEqual([['Tech', 1990, 2], ['Bio', 1068, 1]]);
    expect(a.by_sector[0]!.weight).toBeCloseTo(65.075, 3);
    expect(a.by_market.map((s) => [s.key, s.value])).toEqual([['KOSPI', 1990], ['KOSDAQ', 1068]]);
    // A: 1e11 shares × 99 = 9.9조 → mid; B: 1e7 × 1,068 = 106.8억 → small; C: no shares → unknown
    expect(a.by_market_cap.map((s) => [s.key, s.value])).toEqual([['small', 1068], ['unknown', 1000], ['mid', 990]]);
  });

  it('buckets market caps at 1조 and 10조', () => {
    expect([capBucket(10_000_000_000_000), capBucket(9_999_999_999_999), capBucket(1_000_000_000_000), capBucket(999_999_999_999), capBucket(null)])
      .toEqual(['large', 'mid', 'mid', 'small', 'unknown']);
  });

  it('ranks the best and worst holdings by P&L percent', () => {
    const r = rankHoldings(holdings, 2);
    expect(r.best.map((h) => h.code)).toEqual(['000002', '000001']);
    expect(r.worst.map((h) => h.code)).toEqual(['000003', '000001']);
  });

  it('gives zero totals and empty allocations without holdings', () => {
    const empty = valueHoldings([]);
    expect(empty.totals).toEqual({ holdings: 0, market_value: 0, cost: 0, unrealized_pnl: 0, unrealized_pnl_percent: 0, day_change: 0, day_change_percent: 0 });
    expect(allocations(empty.holdings)).toEqual({ by_stock: [], by_sector: [], by_market: [], by_market_cap: [] });
  });
});
