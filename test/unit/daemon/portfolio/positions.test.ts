import { describe, expect, it } from 'vitest';
import { mergeLot, poolLots, sellFrom } from '../../../../daemon/portfolio/positions.js';
import { AppError } from '../../../../daemon/errors.js';

describe('position arithmetic (average-cost method)', () => {
  it('merges a purchase at the quantity-weighted average price and keeps the earlier date', () => {
    // 10 @ 1,000 + 30 @ 1,200 = (10,000 + 36,000) / 40 = 1,150
    const lot = mergeLot({ quantity: 10, average_price: 1000, acquired_at: '2025-01-06' }, { quantity: 30, price: 1200, date: '2025-01-02' });
    expect(lot).toEqual({ quantity: 40, average_price: 1150, acquired_at: '2025-01-02' });
  });

  it('capitalises a purchase fee into the average cost', () => {
    // (40 × 1,150 + 10 × 1,300 + 100) / 50 = (46,000 + 13,000 + 100) / 50 = 1,182
    const lot = mergeLot({ quantity: 40, average_price: 1150, acquired_at: '2025-01-02' }, { quantity: 10, price: 1300, fee: 100, date: '2025-01-09' });
    expect(lot.quantity).toBe(50);
    expect(lot.average_price).toBeCloseTo(1182, 10);
    expect(lot.acquired_at).toBe('2025-01-02');
  });

  it('pools lots at their average cost', () => {
    // (50 × 1,182 + 10 × 1,290) / 60 = (59,100 + 12,900) / 60 = 1,200
    const pool = poolLots([
      { quantity: 50, average_price: 1182, acquired_at: '2025-01-02' },
      { quantity: 10, average_price: 1290, acquired_at: '2024-12-30' },
    ]);
    expect(pool).toEqual({ quantity: 60, average_price: 1200, acquired_at: '2024-12-30' });
  });

  it('realises (price − average cost) × quantity − fee and keeps the average of the rest', () => {
    // (1,500 − 1,200) × 20 − 300 = 6,000 − 300 = 5,700; 40 shares left at 1,200
    const sale = sellFrom({ quantity: 60, average_price: 1200, acquired_at: '2025-01-02' }, { quantity: 20, price: 1500, fee: 300, date: '2025-02-03' }, '000001');
    expect(sale.realized_pnl).toBe(5700);
    expect(sale.average_cost).toBe(1200);
    expect(sale.remaining).toEqual({ quantity: 40, average_price: 1200, acquired_at: '2025-01-02' });
  });

  it('realises a loss and leaves nothing when everything is sold', () => {
    // (1,100 − 1,200) × 40 = −4,000
    const sale = sellFrom({ quantity: 40, average_price: 1200, acquired_at: '2025-01-02' }, { quantity: 40, price: 1100, date: '2025-02-04' }, '000001');
    expect(sale.realized_pnl).toBe(-4000);
    expect(sale.remaining).toBeNull();
  });

  it('rejects a sale above the held quantity, naming the quantity field', () => {
    const attempt = () => sellFrom({ quantity: 40, average_price: 1200, acquired_at: '2025-01-02' }, { quantity: 41, price: 1100, date: '2025-02-04' }, '000001');
    expect(attempt).toThrow(AppError);
    try {
      attempt();
    } catch (err) {
      expect((err as AppError).status).toBe(400);
      expect((err as AppError).details.quantity).toMatch(/40 shares of 000001/);
    }
    expect(() => sellFrom(null, { quantity: 1, price: 1, date: '2025-01-01' }, '000002')).toThrow(/more shares than are held/);
  });
});
