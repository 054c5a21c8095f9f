/**
 * The load-files processor against a real store (sqlite, and PostgreSQL in that pass):
 * one file = one transaction (streamed NDJSON included), rows of unlisted stocks
 * rejected with file, line and reason, every reason of a refused file in the failure,
 * and OpenDART reports loaded one per file in either order.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnrecoverableError, type Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMarketProcessor } from '../../../daemon/jobs/processors/market-processor.js';
import type { JobProgress, JobRequest, JobResult } from '../../../daemon/jobs/types.js';
import { createLogger } from '../../../daemon/infra/logger.js';
import { tradingDaysBetween } from '../../../daemon/kernel/krx-calendar.js';
import { createMarketDataService } from '../../../daemon/market/market-data-service.js';
import type { FinancialQuarter } from '../../../daemon/kernel/records.js';
import { createFinancialsRepo } from '../../../daemon/store/financials-repo.js';
import { createIndexRepo } from '../../../daemon/store/index-repo.js';
import { createIndicatorsRepo } from '../../../daemon/store/indicators-repo.js';
import { createPricesRepo } from '../../../daemon/store/prices-repo.js';
import { createStocksRepo } from '../../../daemon/store/stocks-repo.js';
import { openTestDb, type TestDb } from '../../helpers/test-store.js';

const DAYS = tradingDaysBetween('2022-01-03', '2026-03-20');
const bar = (code: string, date: string, close = 100) => JSON.stringify({
  kind: 'bar', stock_code: code, trade_date: date, open_price: close, high_price: close + 10, low_price: close - 10, close_price: close,
  volume: 1000, trading_value: 100_000, market_cap: null, shares_outstanding: null,
});
const badBar = (code: string, date: string) => JSON.stringify({
  kind: 'bar', stock_code: code, trade_date: date, open_price: 100, high_price: 90, low_price: 80, close_price: 95, volume: 1, trading_value: 1,
});
const stockLine = (code: string, name: string) => JSON.stringify({ kind: 'stock', code, name, market: 'KOSPI' });

/** A store, the market service over it, and the processor with 100-line NDJSON batches. */
interface Harness {
  store: TestDb;
  dir: string;
  repos: { stocks: ReturnType<typeof createStocksRepo>; prices: ReturnType<typeof createPricesRepo>; financials: ReturnType<typeof createFinancialsRepo> };
  /** Run a load-files job; resolves with its result and every progress report. */
  load(paths: string[]): Promise<{ result: JobResult; progress: JobProgress[] }>;
  file(name: string, lines: string[]): Promise<string>;
}

async function harness(label: string): Promise<Harness> {
  const store = await openTestDb(label);
  const { db } = store;
  const stocks = createStocksRepo(db);
  const prices = createPricesRepo(db);
  const financials = createFinancialsRepo(db);
  const market = createMarketDataService({ db, stocks, prices, financials, index: createIndexRepo(db), indicators: createIndicatorsRepo(db) });
  const dir = await mkdtemp(join(tmpdir(), 'file-loads-'));
  const processor = createMarketProcessor({ market, sample: () => [], logger: createLogger('silent'), onIndicatorsComputed: async () => undefined, chunkRows: 100, importDirs: [dir] });
  return {
    store, dir, repos: { stocks, prices, financials },
    async load(paths) {
      const progress: JobProgress[] = [];
      const job = { id: '1', data: { type: 'load-files', paths, compute: false }, updateProgress: async (p: JobProgress) => void progress.push(p) };
      const result = await processor(job as unknown as Job<JobRequest, JobResult>);
      return { result, progress };
    },
    async file(name, lines) {
      const path = join(dir, name);
      await writeFile(path, `${lines.join('\n')}\n`);
      return path;
    },
  };
}

describe('one file, one transaction', () => {
  let h: Harness;
  beforeEach(async () => (h = await harness('file-tx')));
  afterEach(async () => {
    await h.store.close();
    await rm(h.dir, { recursive: true, force: true });
  });

  it('leaves the database unchanged when an NDJSON file passes 5% bad rows only after its first batches', async () => {
    // Given 1,000 good lines (a stock and 999 bars: ten 100-line batches, each fine on its own) followed by 100 bad bars
    const good = [stockLine('005930', '삼성전자'), ...DAYS.slice(0, 999).map((d) => bar('005930', d))];
    const bad = DAYS.slice(0, 100).map((d) => badBar('005930', d));
    const path = await h.file('market.ndjson', [...good, ...bad]);
    // When it is loaded
    const failure = await h.load([path]).catch((err: unknown) => err);
    // Then the job fails at once (bad input) naming the file, with the reasons
    expect(failure).toBeInstanceOf(UnrecoverableError);
    expect((failure as Error).message).toMatch(/^.*market\.ndjson: 100 of 1100 rows invalid \(9\.1% > 5%\); file rejected\n/);
    expect((failure as Error).message).toContain(`${path}:1001: bar: high 90 below max(open 100, close 95)`);
    // And nothing was kept: not the stock, not one bar of the batches written before the verdict
    expect(await h.repos.stocks.count()).toBe(0);
    expect(await h.repos.prices.countBars()).toBe(0);
  });

  it('commits a good NDJSON file streamed in many batches as a whole', async () => {
    const path = await h.file('good.ndjson', [stockLine('005930', '삼성전자'), ...DAYS.slice(0, 450).map((d) => bar('005930', d))]);
    const { result, progress } = await h.load([path]);
    // Five batches reported progress as they were written; the commit came at the end.
    expect([...new Set(progress.filter((p) => p.phase === 'load' && p.rows_ok > 0).map((p) => p.rows_ok))]).toEqual([100, 200, 300, 400, 451]);
    expect(result.files[0]).toMatchObject({ rows_total: 451, rows_ok: 451, rows_rejected: 0, written: expect.objectContaining({ stocks: 1, bars: 450 }) });
    expect(await h.repos.prices.countBars()).toBe(450);
  });
});

describe('rows of stocks with no stock record', () => {
  let h: Harness;
  beforeEach(async () => (h = await harness('file-unlisted')));
  afterEach(async () => {
    await h.store.close();
    await rm(h.dir, { recursive: true, force: true });
  });

  it('are rejected with file, line and reason, not counted as loaded', async () => {
    // Given 40 bars of a listed stock and one bar (line 43) of a code no file lists
    const path = await h.file('mixed.ndjson', [
      stockLine('005930', '삼성전자'),
      ...DAYS.slice(0, 40).map((d) => bar('005930', d)),
      bar('123450', DAYS[0]!),
      JSON.stringify({ kind: 'stock', code: '654320', shares_outstanding: 10 }), // a partial update of an unknown stock
    ]);
    const { result } = await h.load([path]);
    // Then the file loads (2 of 43 rows bad is under 5%) and both rows are rejected, with their lines
    expect(result.files[0]).toMatchObject({ rows_total: 43, rows_ok: 41, rows_rejected: 2 });
    expect(result.files[0]!.rejected).toEqual([
      { line: 42, reason: 'unknown stock code 123450 — load a listing or quotes file first' },
      { line: 43, reason: 'unknown stock code 654320 — load a listing or quotes file first' },
    ]);
    expect(result.files[0]!.unknown_codes).toEqual(['123450', '654320']);
    expect(result.rows_rejected).toBe(2);
    expect(await h.repos.prices.countBars()).toBe(40);
  });

  it('refuse a history file for an unlisted stock whole, listing every row', async () => {
    const rows = DAYS.slice(0, 3).map((d) => `${d},100,110,90,105,1000`);
    const path = join(h.dir, '000660.csv');
    await writeFile(path, ['Date,Open,High,Low,Close,Volume', ...rows].join('\n'));
    const failure = (await h.load([path]).catch((err: unknown) => err)) as Error;
    expect(failure).toBeInstanceOf(UnrecoverableError);
    expect(failure.message.split('\n')).toEqual([
      `${path}: 3 of 3 rows invalid (100.0% > 5%); file rejected`,
      `  ${path}:2: unknown stock code 000660 — load a listing or quotes file first`,
      `  ${path}:3: unknown stock code 000660 — load a listing or quotes file first`,
      `  ${path}:4: unknown stock code 000660 — load a listing or quotes file first`,
    ]);
  });

  it('list up to 100 reasons of a refused file, then how many more', async () => {
    const path = await h.file('bad.ndjson', DAYS.slice(0, 150).map((d) => badBar('005930', d)));
    const failure = (await h.load([path]).catch((err: unknown) => err)) as Error;
    const lines = failure.message.split('\n');
    expect(lines[0]).toBe(`${path}: 150 of 150 rows invalid (100.0% > 5%); file rejected`);
    expect(lines.slice(1, 101).every((l, i) => l.startsWith(`  ${path}:${i + 1}: bar: high 90`))).toBe(true);
    expect(lines.slice(101)).toEqual(['  … and 50 more']);
  });
});

// OpenDART fnlttSinglAcntAll items (amounts in billions of won), as in test/unit/loaders/dart-json.test.ts.
const B = 1_000_000_000;
const item = (reprt: string, sj: string, id: string, nm: string, amount: number, add?: number) => ({
  reprt_code: reprt, bsns_year: '2025', stock_code: '005930', sj_div: sj, account_id: id, account_nm: nm,
  thstrm_amount: String(amount * B), ...(add === undefined ? {} : { thstrm_add_amount: String(add * B) }),
});
const report = (reprt: string, v: { rev: number; op: number; net: number; ocf: number; assets: number }) => ({
  status: '000', message: '정상', list: [
    item(reprt, 'BS', 'ifrs-full_Assets', '자산총계', v.assets),
    item(reprt, 'IS', 'ifrs-full_Revenue', '매출액', v.rev),
    item(reprt, 'IS', 'dart_OperatingIncomeLoss', '영업이익', v.op),
    item(reprt, 'IS', 'ifrs-full_ProfitLoss', '분기순이익', v.net),
    item(reprt, 'CF', 'ifrs-full_CashFlowsFromUsedInOperatingActivities', '영업활동현금흐름', v.ocf),
  ],
});
// Q1–Q3: three-month revenue etc.; annual: the full year; cash flow year to date everywhere.
const REPORTS = {
  q1: report('11013', { rev: 70, op: 10, net: 8, ocf: 12, assets: 500 }),
  q2: report('11012', { rev: 75, op: 12, net: 9, ocf: 25, assets: 510 }),
  q3: report('11014', { rev: 80, op: 14, net: 11, ocf: 40, assets: 520 }),
  annual: report('11011', { rev: 310, op: 50, net: 38, ocf: 60, assets: 540 }),
};
/** What the four quarters must be: Q4 = annual − (Q1 + Q2 + Q3); cash flow de-cumulated. */
const EXPECTED = [
  { fiscal_quarter: 1, revenue: 70 * B, operating_profit: 10 * B, net_profit: 8 * B, operating_cash_flow: 12 * B, total_assets: 500 * B },
  { fiscal_quarter: 2, revenue: 75 * B, operating_profit: 12 * B, net_profit: 9 * B, operating_cash_flow: 13 * B, total_assets: 510 * B },
  { fiscal_quarter: 3, revenue: 80 * B, operating_profit: 14 * B, net_profit: 11 * B, operating_cash_flow: 15 * B, total_assets: 520 * B },
  { fiscal_quarter: 4, revenue: 85 * B, operating_profit: 14 * B, net_profit: 10 * B, operating_cash_flow: 20 * B, total_assets: 540 * B },
];
const pick = (q: FinancialQuarter) => ({
  fiscal_quarter: q.fiscal_quarter, revenue: q.revenue, operating_profit: q.operating_profit, net_profit: q.net_profit,
  operating_cash_flow: q.operating_cash_flow, total_assets: q.total_assets,
});

describe('OpenDART reports, one per file', () => {
  let h: Harness;
  let files: Record<keyof typeof REPORTS, string>;
  beforeEach(async () => {
    h = await harness('file-dart');
    await h.load([await h.file('listing.ndjson', [stockLine('005930', '삼성전자')])]);
    files = {} as typeof files;
    for (const [name, body] of Object.entries(REPORTS)) files[name as keyof typeof REPORTS] = await h.file(`005930_2025_${name}.json`, [JSON.stringify(body)]);
  });
  afterEach(async () => {
    await h.store.close();
    await rm(h.dir, { recursive: true, force: true });
  });
  const quarters = async () => (await h.repos.financials.forStock('005930', 8)).reverse().map(pick);

  it('derive Q4 and quarterly cash flow when the annual report comes last', async () => {
    for (const name of ['q1', 'q2', 'q3', 'annual'] as const) await h.load([files[name]]);
    expect(await quarters()).toEqual(EXPECTED);
  });

  it('derive the same quarters when the annual report comes first and the quarters in reverse', async () => {
    await h.load([files.annual]);
    // Alone, the annual report gives Q4's balance sheet but no Q4 flows (and no nulls over anything).
    expect((await quarters())[0]).toMatchObject({ fiscal_quarter: 4, revenue: null, total_assets: 540 * B });
    for (const name of ['q3', 'q2', 'q1'] as const) await h.load([files[name]]);
    expect(await quarters()).toEqual(EXPECTED);
  });

  it('never overwrite a stored figure with null: reloading the annual report alone changes nothing', async () => {
    // Given the year loaded, and a dividend for Q4 from a statements CSV (OpenDART's account list has none)
    for (const name of ['q1', 'q2', 'q3', 'annual'] as const) await h.load([files[name]]);
    const csv = join(h.dir, 'dividends.csv');
    await writeFile(csv, 'code,fiscal_year,fiscal_quarter,dividends_per_share\n005930,2025,4,361\n');
    await h.load([csv]);
    // When the annual report is loaded again on its own
    await h.load([files.annual]);
    // Then every derived figure and the dividend are still there
    expect(await quarters()).toEqual(EXPECTED);
    expect((await h.repos.financials.forStock('005930', 1))[0]).toMatchObject({ fiscal_quarter: 4, dividends_per_share: 361, revenue: 85 * B });
  });

  it('derive Q4 from quarters stored by a statements CSV', async () => {
    const csv = join(h.dir, 'quarters.csv');
    await writeFile(csv, [
      'code,fiscal_year,fiscal_quarter,revenue,operating_profit,net_profit,operating_cash_flow',
      ...EXPECTED.slice(0, 3).map((q) => `005930,2025,${q.fiscal_quarter},${q.revenue},${q.operating_profit},${q.net_profit},${q.operating_cash_flow}`),
    ].join('\n'));
    await h.load([csv]);
    await h.load([files.annual]);
    expect((await quarters())[3]).toEqual(EXPECTED[3]);
  });

  it('reject the report of a stock with no stock record', async () => {
    const other = await h.file('000660_2025.json', [JSON.stringify({ ...REPORTS.q1, list: REPORTS.q1.list.map((i) => ({ ...i, stock_code: '000660' })) })]);
    const failure = (await h.load([other]).catch((err: unknown) => err)) as Error;
    expect(failure.message).toContain(`${other}:1: unknown stock code 000660 — load a listing or quotes file first`);
    expect(await h.repos.financials.forStock('000660', 4)).toEqual([]);
  });
});
