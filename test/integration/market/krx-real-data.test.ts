/**
 * Loads the real KRX files in test/fixtures/krx through the job API and checks
 * values read from the files themselves.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDICATORS } from '../../../daemon/indicators/registry.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { KRX_DIR as KRX_FIXTURES } from '../../helpers/krx-fixtures.js';

const KRX_DIR = KRX_FIXTURES.replace(/\/$/, '');

/** Rows of one CSV file of the folder (UTF-8 with BOM, header line), as objects. */
function readCsv(...path: string[]): Record<string, string>[] {
  return parse(readFileSync(join(KRX_DIR, ...path)), { bom: true, columns: true, skip_empty_lines: true });
}

/**
 * Each KOSPI/KOSDAQ issue's row in the latest listing file that has it, with the
 * universe flags the folder README defines: 관리종목 in Dept (the files leave Dept blank
 * on KOSPI, so only KOSDAQ issues can carry it), SPAC in Dept or a 스팩 name, a code not
 * ending in 0 for preferred shares, and a halt (no trades) on the last file's date.
 */
function latestListingRows(): Map<string, { name: string; administrative: boolean; spac: boolean; preferred: boolean; halted: boolean }> {
  const files = readdirSync(join(KRX_DIR, 'listing')).filter((f) => f.endsWith('.csv')).sort();
  const last = files.at(-1)!;
  const out = new Map<string, { name: string; administrative: boolean; spac: boolean; preferred: boolean; halted: boolean }>();
  for (const file of files) {
    for (const row of readCsv('listing', file)) {
      if (row.Market === 'KONEX') continue;
      out.set(row.Code!, {
        name: row.Name!,
        administrative: row.Dept!.includes('관리종목'),
        spac: /SPAC/i.test(row.Dept!) || /스팩(\d+호)?$/.test(row.Name!),
        preferred: !row.Code!.endsWith('0'),
        halted: file === last && Number(row.Volume) === 0 && Number(row.Open) === 0,
      });
    }
  }
  return out;
}

describe('loading the real KRX folder', () => {
  let t: TestDaemon;
  let admin: string;
  let firstResult: any;
  const get = async (path: string) => {
    const res = await t.request(`/api/v1${path}`, { token: admin });
    return { status: res.status, body: (await res.json()) as any };
  };
  const load = async () => {
    const res = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-files', paths: [KRX_DIR] } });
    expect(res.status).toBe(202);
    const { data } = (await res.json()) as any;
    return waitForJob(t.daemon, data.id);
  };

  beforeAll(async () => {
    t = await startTestDaemon('krx', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1', import_dirs: [KRX_DIR] });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as any).access_token;
    firstResult = await load();
  }, 180_000);
  afterAll(() => t.close());

  it('loads every file kind in date order and counts KONEX as skipped, not rejected', () => {
    const formats = firstResult.files.map((f: any) => f.format);
    expect(formats.filter((f: string) => f === 'fdr-listing')).toHaveLength(10);
    expect(formats).toContain('fdr-desc');
    expect(formats.filter((f: string) => f === 'fdr-index')).toHaveLength(4);
    const listings = firstResult.files.filter((f: any) => f.format === 'fdr-listing').map((f: any) => f.file);
    expect(listings).toEqual([...listings].sort());
    const konex = firstResult.files[listings.length ? firstResult.files.findIndex((f: any) => f.format === 'fdr-listing') : 0].skipped;
    expect(konex.some((s: any) => /KONEX/i.test(s.reason) && s.count > 100)).toBe(true);
    expect(firstResult.indicators.stocks).toBeGreaterThan(2500);
  });

  it('serves Samsung Electronics (005930) exactly as the 2026-03-20 file gives it', async () => {
    // listing/2026-03-20.csv: 005930,삼성전자,KOSPI,Close 199400, Open 202000, High 202500, Low 199000,
    // Volume 35279762, Amount 7019725077866, Marcap 1180375801646800, Stocks 5919637922.
    const { body } = await get('/stocks/005930/history?from=2026-03-20&to=2026-03-20');
    expect(body.data).toEqual([
      expect.objectContaining({
        trade_date: '2026-03-20', open_price: 202000, high_price: 202500, low_price: 199000, close_price: 199400,
        volume: 35279762, trading_value: 7019725077866, market_cap: 1180375801646800, shares_outstanding: 5919637922,
      }),
    ]);
    // desc/2026-03-20.csv: industry 통신 및 방송 장비 제조업, listed 1975-06-11, settles in December.
    const detail = await get('/stocks/005930');
    expect(detail.body.data).toMatchObject({
      code: '005930', name: '삼성전자', market: 'KOSPI', industry: '통신 및 방송 장비 제조업', listing_date: '1975-06-11', settle_month: 12,
      shares_outstanding: 5919637922,
    });
    expect(detail.body.data.indicators.market_cap).toBe(1180375801646800);
    expect(detail.body.data.indicators.close).toBe(199400);
    const price = await get('/stocks/005930/price');
    expect(price.body.data).toMatchObject({ price: 199400, change: -1100, source: 'close', halted: false, volume: 35279762 });
  });

  it('keeps an alphanumeric code (0126Z0) with its real bars', async () => {
    // listing/2026-03-09.csv: 0126Z0,삼성에피스홀딩스,KOSPI, Close 510000, Volume 84696.
    const { body } = await get('/stocks/0126Z0/history?to=2026-03-09');
    expect(body.data).toEqual([expect.objectContaining({ trade_date: '2026-03-09', close_price: 510000, volume: 84696 })]);
  });

  it('treats a halted issue (001570, no trades on any day) as halted, not as bad rows', async () => {
    // Every listing file: 001570,금양,KOSPI, Close 9900, Open/High/Low 0, Volume 0, Marcap 633275240400, Stocks 63967196.
    const history = await get('/stocks/001570/history');
    expect(history.body.data).toEqual([]);
    const price = await get('/stocks/001570/price');
    expect(price.body.data).toMatchObject({ price: 9900, halted: true, volume: 0, as_of: '2026-03-20' });
    const detail = await get('/stocks/001570');
    expect(detail.body.data.indicators.market_cap).toBe(633275240400);
    expect(detail.body.data.indicators.close).toBe(9900);
  });

  it('files KOSDAQ GLOBAL issues (086520 에코프로) under KOSDAQ and keeps the board', async () => {
    const detail = await get('/stocks/086520');
    expect(detail.body.data).toMatchObject({ market: 'KOSDAQ', name: '에코프로' });
    expect(detail.body.data.board).toMatch(/KOSDAQ GLOBAL/);
    // listing/2026-03-19.csv: Close 151100, Volume 925314.
    const { body } = await get('/stocks/086520/history?from=2026-03-19&to=2026-03-19');
    expect(body.data[0]).toMatchObject({ close_price: 151100, volume: 925314 });
  });

  it('returns the file\'s bars oldest first over the 10 trading days', async () => {
    const { body } = await get('/stocks/005930/history');
    expect(body.data.map((b: any) => b.trade_date)).toEqual([
      '2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13',
      '2026-03-16', '2026-03-17', '2026-03-18', '2026-03-19', '2026-03-20',
    ]);
  });

  it('leaves indicators that need more history null, and valuation null without financials', async () => {
    const { body } = await get('/stocks/005930');
    const ind = body.data.indicators;
    expect(ind.sma_20).toBeNull();
    expect(ind.rsi_14).toBeNull();
    expect(ind.return_12m).toBeNull();
    expect(ind.per).toBeNull();
    expect(ind.roe).toBeNull();
    expect(ind.market_cap).toBeGreaterThan(0);
    expect(ind.sma_5).toBeGreaterThan(0);
    expect(ind.return_1w).not.toBeNull();
  });

  it('lists stocks per market with totals', async () => {
    const kospi = await get('/stocks?market=KOSPI&limit=5');
    const kosdaq = await get('/stocks?market=KOSDAQ&limit=5');
    // Distinct codes over the 10 listing files: KOSPI 951, KOSDAQ + KOSDAQ GLOBAL 1,822 (KONEX left out).
    expect(kospi.body.meta.total).toBe(951);
    expect(kosdaq.body.meta.total).toBe(1822);
    expect(kospi.body.data).toHaveLength(5);
    expect(kospi.body.data[0].market).toBe('KOSPI');
    // Sorted by market cap, largest first.
    const caps = kospi.body.data.map((s: any) => s.market_cap);
    expect(caps).toEqual([...caps].sort((a: number, b: number) => b - a));
  });

  it('changes nothing when the same folder is loaded again', async () => {
    const ctx = t.daemon.context();
    const bars = await ctx.store.prices.countBars();
    const stocks = await ctx.store.stocks.count();
    const samsung = (await get('/stocks/005930')).body.data;
    const again: any = await load();
    expect(again.rows_ok).toBe(firstResult.rows_ok);
    expect(await ctx.store.prices.countBars()).toBe(bars);
    expect(await ctx.store.stocks.count()).toBe(stocks);
    const { indicators_as_of, ...rest } = (await get('/stocks/005930')).body.data;
    const { indicators_as_of: _before, ...restBefore } = samsung;
    expect(rest).toEqual(restBefore);
    expect(indicators_as_of).toBe('2026-03-20');
  });

  describe('screening on real data', () => {
    const screen = async (json: unknown, path = '/api/v1/screen') => {
      const res = await t.request(path, { method: 'POST', token: admin, json });
      expect(res.status, JSON.stringify(json)).toBe(200);
      return { cache: res.headers.get('x-cache'), body: (await res.json()) as any };
    };

    it.each([
      // flag, an issue the files mark with it (listing/2026-03-20.csv)
      ['administrative', '180400'], // DXVX, KOSDAQ, Dept 관리종목(소속부없음)
      ['spac', '452980'], // 신한제11호스팩, Dept SPAC(소속부없음)
      ['preferred', '005935'], // 삼성전자우: code ends in 5
      ['halted', '001570'], // 금양: Open/High/Low 0, Volume 0 on every day
    ] as const)('exclude %s drops %s and exactly the issues the files flag', async (flag, code) => {
      // Given the issue next to Samsung Electronics (no flag)
      const both = await screen({ codes: [code, '005930'], sort: [{ field: 'code', direction: 'asc' }] });
      expect(both.body.stocks.map((s: any) => s.code)).toEqual(['005930', code].sort());
      // When the flag is excluded
      const without = await screen({ codes: [code, '005930'], exclude: [flag] });
      // Then only Samsung is left
      expect(without.body.stocks.map((s: any) => s.code)).toEqual(['005930']);
      // And over the whole market, exactly the issues flagged in the files drop out
      const flagged = [...latestListingRows().values()].filter((r) => r[flag]).length;
      expect(flagged).toBeGreaterThan(0);
      const all = await screen({ per_page: 1 });
      const rest = await screen({ per_page: 1, exclude: [flag] });
      expect(all.body.meta.total - rest.body.meta.total).toBe(flagged);
    });

    it('screens as of a past day with the designations in force that day', async () => {
      // 174900 was 관리종목 until 03-13 (중견기업부 from 03-16); 377030 became 관리종목 on 03-17;
      // 298060 left the designation on 03-17 only, and was back on 03-18.
      const codes = ['174900', '377030', '298060'];
      const kept = async (asOf?: string) => {
        const { body } = await screen({ codes, exclude: ['administrative'], sort: [{ field: 'code', direction: 'asc' }], ...(asOf ? { as_of: asOf } : {}) });
        return body.stocks.map((s: any) => s.code);
      };
      expect(await kept('2026-03-13')).toEqual(['377030']);
      expect(await kept('2026-03-17')).toEqual(['174900', '298060']);
      expect(await kept('2026-03-18')).toEqual(['174900']);
      expect(await kept()).toEqual(['174900']);
      // The row's board is that day's too
      const { body } = await screen({ codes: ['377030'], as_of: '2026-03-16', fields: ['board'] });
      expect(body.stocks[0].board ?? body.stocks[0].fields?.board).toBe('기술성장기업부');
    });

    it('answers a template whose inputs are all missing with an empty result, missing_inputs and a message', async () => {
      // Given no financial statements loaded: PER, PBR and ROE exist for no stock
      // When the value template runs (twice: the second answer comes from the cache)
      const first = await screen({}, '/api/v1/screen/templates/value');
      const again = await screen({}, '/api/v1/screen/templates/value');
      // Then both are successes with no stocks, naming what is missing and saying why
      for (const { body } of [first, again]) {
        expect(body.status).toBe('success');
        expect(body.stocks).toEqual([]);
        expect(body.meta.total).toBe(0);
        expect(body.missing_inputs).toEqual(['per', 'pbr', 'roe']);
        expect(body.message).toMatch(/per, pbr, roe/);
      }
      expect(again.cache).toBe('HIT');
      // And the same query sent to /screen shares the cached answer without the template's note
      const list = (await (await t.request('/api/v1/screen/templates', { token: admin })).json()) as any;
      const value = list.data.find((tpl: any) => tpl.id === 'value');
      expect(value.missing_inputs).toEqual(['per', 'pbr', 'roe']);
      const direct = await screen({
        exclude: value.query.universe.exclude,
        filters: Object.fromEntries(value.query.filters.map((f: any) => [f.field, { min: f.min, max: f.max }])),
        sort: value.query.sort,
      });
      expect(direct.cache).toBe('HIT');
      expect(direct.body.missing_inputs).toBeUndefined();
      // A template with its inputs present still answers normally
      const large = await screen({}, '/api/v1/screen/templates/large-cap');
      expect(large.body.meta.total).toBeGreaterThan(100);
      expect(large.body.missing_inputs).toBeUndefined();
    });

    it('holds exactly the index files\' series as the market index used for beta and relative strength', async () => {
      // Given the KOSPI and KOSDAQ files of 2025 and 2026
      const { index } = t.daemon.context().store;
      for (const [market, dir] of [['KOSPI', 'kospi'], ['KOSDAQ', 'kosdaq']] as const) {
        const fileRows = ['2025.csv', '2026.csv'].flatMap((f) => readCsv('index', dir, f));
        // Then the stored series is the files' closes, day by day, loaded (not computed from constituents)
        const stored = await index.series(market);
        expect(stored.map((b) => [b.trade_date, b.close])).toEqual(fileRows.map((r) => [r.Date, Number(r.Close)]));
        expect(await index.loadedDays(market)).toBe(fileRows.length);
      }
      // And with 10 days of stock history, the index-based indicators are null for every stock
      const fields = (await (await t.request('/api/v1/screen/fields', { token: admin })).json()) as any;
      for (const id of ['beta_250', 'rs_3m', 'rs_12m']) expect(fields.data.find((f: any) => f.id === id).coverage, id).toBe(0);
    });

    it('computes returns over the available window by hand from the files', async () => {
      // listing/2026-03-13.csv: 005930 Close 183500 (checked below from the file); 2026-03-20: 199400
      const close = (date: string, code: string) => Number(readCsv('listing', `${date}.csv`).find((r) => r.Code === code)!.Close);
      const ind = (await get('/stocks/005930')).body.data.indicators;
      expect(ind.return_1w).toBeCloseTo((close('2026-03-20', '005930') / close('2026-03-13', '005930') - 1) * 100, 9);
      expect(ind.change_percent).toBeCloseTo((close('2026-03-20', '005930') / close('2026-03-19', '005930') - 1) * 100, 9);
    });

    it('leaves every indicator that needs more than 10 days null for every stock, and fills the rest', async () => {
      // Given /screen/fields coverage (stocks with a value) per indicator
      const fields = (await (await t.request('/api/v1/screen/fields', { token: admin })).json()) as any;
      const coverage = new Map<string, number>(fields.data.map((f: any) => [f.id, f.coverage]));
      // Then an indicator is present iff it reads only prices and needs at most 10 bars
      // (return_ytd also needs the last close of 2025, which the folder, starting in March 2026, lacks)
      const needsMore = INDICATORS.filter((d) => d.min_history > 10 || d.inputs.includes('financials') || d.id === 'return_ytd').map((d) => d.id);
      const present = INDICATORS.filter((d) => !needsMore.includes(d.id)).map((d) => d.id);
      expect(needsMore.filter((id) => coverage.get(id) !== 0)).toEqual([]);
      expect(present.filter((id) => (coverage.get(id) ?? 0) === 0)).toEqual([]);
      expect(needsMore).toEqual(expect.arrayContaining(['obv', 'sma_20', 'rsi_14', 'per', 'roe', 'beta_250']));
      expect(present).toEqual(expect.arrayContaining(['close', 'market_cap', 'turnover', 'return_1w', 'sma_5', 'limit_up']));
    });
  });

  it('answers 404 for an unknown code and 400 for a malformed one', async () => {
    expect((await get('/stocks/999999')).status).toBe(404);
    const bad = await get('/stocks/12345');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.code).toMatch(/6-character/);
  });
});
