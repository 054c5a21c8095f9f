/**
 * A small market for OpenDART tests: two listed companies the daemon holds (with a few days of
 * prices), a listed one it does not hold and an unlisted one in OpenDART's list, and the reports
 * the fake serves for them (2024: Samsung all four with consolidated and separate statements, its
 * cash flow, cash, borrowings and gross profit in full statements only, SK hynix three with
 * separate statements only, KB — a financial company the daemon holds only
 * when a test adds it — three in full statements only).
 */
import type { DaemonContext } from '../../daemon/daemon.js';
import type { DailyBar } from '../../daemon/kernel/records.js';
import type { FakeDartReport } from '../fakes/dart-server.js';

/** A billion won. */
export const B = 1e9;
export const SAMSUNG = { corp_code: '00126380', corp_name: '삼성전자', stock_code: '005930' };
export const HYNIX = { corp_code: '00164779', corp_name: 'SK하이닉스', stock_code: '000660' };
/** Listed, but not a stock the daemon holds. */
export const OTHER = { corp_code: '00999999', corp_name: '다른회사', stock_code: '123456' };
/** A financial company: not in the key-accounts service, its statements only in full statements. */
export const KB = { corp_code: '00688996', corp_name: 'KB금융', stock_code: '105560' };
export const UNLISTED = { corp_code: '00434003', corp_name: '다코', stock_code: '' };
export const DAYS = ['2025-03-10', '2025-03-11', '2025-03-12'];

/** 10:00 KST of a date, as epoch ms. */
export const kst10 = (date: string) => Date.parse(`${date}T10:00:00+09:00`);

/** The reports the fake serves (fresh objects: a test may correct one). */
export function dartReports(): FakeDartReport[] {
  const s = (reprt_code: FakeDartReport['reprt_code'], rcept_no: string, accounts: FakeDartReport['accounts']): FakeDartReport => ({ corp_code: SAMSUNG.corp_code, bsns_year: 2024, reprt_code, rcept_no, fs: 'both', accounts });
  const h = (reprt_code: FakeDartReport['reprt_code'], rcept_no: string, accounts: FakeDartReport['accounts']): FakeDartReport => ({ corp_code: HYNIX.corp_code, bsns_year: 2024, reprt_code, rcept_no, fs: 'OFS', accounts });
  return [
    // Samsung: consolidated and separate statements, four reports of 2024 (Q1–Q3: three months and year to date);
    // gross profit, operating cash flow (year to date), cash and long-term borrowings are in its full statements only
    s('11013', '20240515000123', { 매출액: [100 * B, 100 * B], 영업이익: [10 * B, 10 * B], 당기순이익: [8 * B, 8 * B], 자산총계: [1000 * B], 자본총계: [600 * B], 부채총계: [400 * B], 자본금: [1 * B], 매출총이익: [40 * B, 40 * B], 영업활동현금흐름: [20 * B, 20 * B], 현금및현금성자산: [50 * B], 장기차입금: [30 * B] }),
    s('11012', '20240814000111', { 매출액: [120 * B, 220 * B], 영업이익: [12 * B, 22 * B], 당기순이익: [9 * B, 17 * B], 자산총계: [1010 * B], 자본총계: [610 * B], 부채총계: [400 * B], 매출총이익: [45 * B, 85 * B], 영업활동현금흐름: [45 * B, 45 * B], 현금및현금성자산: [55 * B], 장기차입금: [31 * B] }),
    s('11014', '20241114002642', { 매출액: [130 * B, 350 * B], 영업이익: [13 * B, 35 * B], 당기순이익: [10 * B, 27 * B], 자산총계: [1020 * B], 자본총계: [620 * B], 부채총계: [400 * B], 매출총이익: [50 * B, 135 * B], 영업활동현금흐름: [70 * B, 70 * B], 현금및현금성자산: [60 * B], 장기차입금: [32 * B] }),
    s('11011', '20250311001085', { 매출액: [500 * B], 영업이익: [50 * B], 당기순이익: [40 * B], 자산총계: [1100 * B], 자본총계: [650 * B], 부채총계: [450 * B], 매출총이익: [180 * B], 영업활동현금흐름: [100 * B], 현금및현금성자산: [65 * B], 장기차입금: [33 * B] }),
    // SK hynix: separate statements only, its annual report not filed yet.
    h('11013', '20240516000201', { 매출액: [30 * B, 30 * B], 당기순이익: [3 * B, 3 * B], 자산총계: [300 * B], 자본총계: [200 * B] }),
    h('11012', '20240814000222', { 매출액: [40 * B, 70 * B], 당기순이익: [4 * B, 7 * B], 자산총계: [310 * B], 자본총계: [205 * B] }),
    h('11014', '20241113000333', { 매출액: [50 * B, 120 * B], 당기순이익: [5 * B, 12 * B], 자산총계: [320 * B], 자본총계: [210 * B] }),
    // KB: consolidated full statements only; operating cash flow is year to date in every report.
    ...([['11013', '20240516000444', 10, 40], ['11012', '20240814000555', 25, 41], ['11014', '20241114000666', 45, 42]] as const).map(([reprt_code, rcept_no, cf, cash]): FakeDartReport => ({
      corp_code: KB.corp_code, bsns_year: 2024, reprt_code, rcept_no, fs: 'CFS', fullOnly: true,
      accounts: { 당기순이익: [5 * B, 5 * B], 자산총계: [700 * B], 자본총계: [60 * B], 영업활동현금흐름: [cf * B, cf * B], 현금및현금성자산: [cash * B] },
    })),
  ];
}

/** Store the two held companies and their prices, as a file load would (the market holds real data). */
export async function seedDartMarket(ctx: DaemonContext): Promise<void> {
  const bar = (code: string, day: string): DailyBar => ({ stock_code: code, trade_date: day, open_price: 100, high_price: 100, low_price: 100, close_price: 100, volume: 1000, trading_value: 100_000, market_cap: 100_000_000, shares_outstanding: 1_000_000 });
  await ctx.store.marketData.apply({
    stocks: [{ code: SAMSUNG.stock_code, name: '삼성전자', market: 'KOSPI', settle_month: 12 }, { code: HYNIX.stock_code, name: 'SK하이닉스', market: 'KOSPI', settle_month: 12 }],
    bars: DAYS.flatMap((d) => [bar(SAMSUNG.stock_code, d), bar(HYNIX.stock_code, d)]), halts: [], financials: [], index: [],
  });
  await ctx.store.marketData.setContent('files');
}
