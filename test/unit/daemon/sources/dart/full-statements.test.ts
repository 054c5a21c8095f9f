/** Which full statements a company needs: once per disclosure, by its receipt number. */
import { describe, expect, it } from 'vitest';
import { fullRequests, ledgerKey } from '../../../../../daemon/sources/dart/full-statements.js';
import { periodKey, type CompanyItems, type KeyAccountItem } from '../../../../../daemon/sources/dart/key-accounts.js';
import { period } from '../../../../../daemon/sources/dart/periods.js';

const Q3 = period(2024, 3);
const FY = period(2024, 4);
const item = (rcept_no: string, fs_div: string): KeyAccountItem => ({ rcept_no, fs_div, bsns_year: '2024', reprt_code: '11014', account_nm: '매출액', sj_div: 'IS', thstrm_amount: '1' });
const company = (items: KeyAccountItem[]): CompanyItems => new Map([[periodKey(Q3), items]]);

describe('fullRequests', () => {
  it('asks for a disclosure not fetched before, in the division the key accounts answered', () => {
    const { requests, inEffect } = fullRequests('005930', [Q3], company([item('20241114000001', 'CFS'), item('20241114000001', 'OFS')]), new Map(), '2024-12-31');
    expect(requests).toEqual([{ period: Q3, ledgerKey: ledgerKey('005930', Q3), divisions: ['CFS', 'OFS'], rceptNo: '20241114000001' }]);
    expect(inEffect.size).toBe(0);
    expect(fullRequests('000660', [Q3], company([item('20241113000002', 'OFS')]), new Map(), '2024-12-31').requests[0]?.divisions).toEqual(['OFS', 'CFS']);
  });

  it('does not ask again for a receipt number already fetched, and asks for a correction (a new receipt number)', () => {
    const ledger = new Map([[ledgerKey('005930', Q3), '20241114000001']]);
    const same = fullRequests('005930', [Q3], company([item('20241114000001', 'CFS')]), ledger, '2024-12-31');
    expect(same.requests).toEqual([]);
    expect([...same.inEffect]).toEqual([[ledgerKey('005930', Q3), '20241114000001']]);
    const corrected = fullRequests('005930', [Q3], company([item('20241120000009', 'CFS')]), ledger, '2024-12-31');
    expect(corrected.requests.map((r) => r.rceptNo)).toEqual(['20241120000009']);
  });

  it('asks for a report the key accounts are silent about only once it is due, and not again once fetched', () => {
    // The annual report of 2024 is due on 2025-03-31
    expect(fullRequests('105560', [FY], undefined, new Map(), '2025-03-20').requests).toEqual([]);
    expect(fullRequests('105560', [FY], undefined, new Map(), '2025-04-01').requests).toEqual([{ period: FY, ledgerKey: ledgerKey('105560', FY), divisions: ['CFS', 'OFS'], rceptNo: null }]);
    const fetched = fullRequests('105560', [FY], undefined, new Map([[ledgerKey('105560', FY), '20250320000123']]), '2025-04-01');
    expect(fetched.requests).toEqual([]);
    expect(fetched.inEffect.get(ledgerKey('105560', FY))).toBe('20250320000123');
  });
});
