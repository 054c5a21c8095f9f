/**
 * A halted issue keeps its last close, listed shares and market cap as the file gives
 * them, also when it has an older bar: 001570 (금양) is halted on every day of
 * the real KRX files in test/fixtures/krx.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { KRX_DIR as KRX_FIXTURES } from '../../helpers/krx-fixtures.js';

const KRX_DIR = KRX_FIXTURES.replace(/\/$/, '');
// listing/2026-03-19.csv and 2026-03-20.csv: 001570,KR7001570001,금양,KOSPI,,9900,0,0,0.0,0,0,0,0,0,633275240400,63967196,STK
// (Close 9900, Open/High/Low 0, Volume 0: halted; Marcap 633275240400; Stocks 63967196).
const FILE_CLOSE = 9900;
const FILE_MARCAP = 633_275_240_400;
const FILE_SHARES = 63_967_196;

describe('a halted issue with an older bar (001570 금양)', () => {
  let t: TestDaemon;
  let admin: string;
  const get = async (path: string) => ((await (await t.request(`/api/v1${path}`, { token: admin })).json()) as { data: any }).data;

  beforeAll(async () => {
    t = await startTestDaemon('halted', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1', import_dirs: [KRX_DIR, tmpdir()] });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    admin = ((await login.json()) as { access_token: string }).access_token;
    // Given a bar of 2026-03-06, before the halt, whose market cap and shares differ from the files'
    const earlier = join(t.dataDir, 'earlier.ndjson');
    await writeFile(earlier, [
      JSON.stringify({ kind: 'stock', code: '001570', name: '금양', market: 'KOSPI' }),
      JSON.stringify({
        kind: 'bar', stock_code: '001570', trade_date: '2026-03-06', open_price: 10_000, high_price: 10_200, low_price: 9_800, close_price: 10_100,
        volume: 5_000, trading_value: 50_500_000, market_cap: 700_000_000_000, shares_outstanding: 69_300_000,
      }),
    ].join('\n'));
    // When it is loaded, then the real quote files of the two days it is halted
    const paths = [earlier, join(KRX_DIR, 'listing/2026-03-19.csv'), join(KRX_DIR, 'listing/2026-03-20.csv')];
    const res = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-files', paths } });
    await waitForJob(t.daemon, ((await res.json()) as { data: { id: string } }).data.id);
  }, 120_000);
  afterAll(() => t?.close());

  it('takes its market cap, shares and close from the day\'s halt record, not from the older bar', async () => {
    const detail = await get('/stocks/001570');
    expect(detail.indicators.market_cap).toBe(FILE_MARCAP);
    expect(detail.indicators.shares_outstanding).toBe(FILE_SHARES);
    expect(detail.indicators.close).toBe(FILE_CLOSE);
    expect(detail.shares_outstanding).toBe(FILE_SHARES);
  });

  it('is served as halted at the file\'s close, with the older bar still in its history', async () => {
    expect(await get('/stocks/001570/price')).toMatchObject({ price: FILE_CLOSE, halted: true, volume: 0, as_of: '2026-03-20' });
    const history = await get('/stocks/001570/history');
    expect(history).toEqual([expect.objectContaining({ trade_date: '2026-03-06', close_price: 10_100, market_cap: 700_000_000_000 })]);
  });

  it('keeps the halt record for export exactly as the file gives it', async () => {
    const res = await t.request('/api/v1/admin/export', { token: admin });
    const halts = (await res.text()).trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.kind === 'halt' && r.stock_code === '001570');
    expect(halts).toEqual([
      { kind: 'halt', stock_code: '001570', trade_date: '2026-03-19', last_close: FILE_CLOSE, market_cap: FILE_MARCAP, shares_outstanding: FILE_SHARES },
      { kind: 'halt', stock_code: '001570', trade_date: '2026-03-20', last_close: FILE_CLOSE, market_cap: FILE_MARCAP, shares_outstanding: FILE_SHARES },
    ]);
  });
});
