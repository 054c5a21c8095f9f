import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketRows, runMarketBench } from '../../../loadtest/bench/market-load.js';
import { krxFolder } from '../../../loadtest/bench/run-bench.js';
import { openStore } from '../../../daemon/store/open.js';

const HEADER = '\ufeff,Code,ISU_CD,Name,Market,Dept,Close,ChangeCode,Changes,ChagesRatio,Open,High,Low,Volume,Amount,Marcap,Stocks,MarketId';
/** Two trading days of a KRX listing: a traded KOSPI issue, a KOSDAQ issue halted on day 2, a KONEX issue (skipped). */
const DAYS: Record<string, string[]> = {
  '2026-03-19': [
    '0,005930,KR7005930003,삼성전자,KOSPI,,173500,2,-14700,-7.81,173500,175500,167300,43066020,7376525851300,1027057179467000,5919637922,STK',
    '1,091990,KR7091990002,셀트리온헬스케어,KOSDAQ,우량기업부,70000,1,500,0.72,69500,70500,69000,100000,7000000000,10000000000000,142857142,KSQ',
    '2,216400,KR7216400002,인바이오젠,KONEX,일반기업부,1500,3,0,0,1500,1500,1500,100,150000,15000000000,10000000,KNX',
  ],
  '2026-03-20': [
    '0,005930,KR7005930003,삼성전자,KOSPI,,175000,1,1500,0.86,174000,176000,173000,30000000,5250000000000,1035936636350000,5919637922,STK',
    '1,091990,KR7091990002,셀트리온헬스케어,KOSDAQ,우량기업부,70000,3,0,0,0,0,0,0,0,10000000000000,142857142,KSQ',
    '2,216400,KR7216400002,인바이오젠,KONEX,일반기업부,1500,3,0,0,1500,1500,1500,100,150000,15000000000,10000000,KNX',
  ],
};

describe('the market-load bench', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-market-test-'));
    await mkdir(join(dir, 'krx', 'listing'), { recursive: true });
    for (const [day, lines] of Object.entries(DAYS)) await writeFile(join(dir, 'krx', 'listing', `${day}.csv`), [HEADER, ...lines].join('\n') + '\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads the sample market into the given data dir, times indicators and the snapshot with their stalls, and counts the KRX folder', async () => {
    // Given a tiny sample market and a two-day KRX listing folder
    const sampleDataDir = join(dir, 'daemon-data');
    const result = await runMarketBench({ stocks: 12, days: 80, seed: 3, krx: join(dir, 'krx'), sampleDataDir });
    // Then the sample figures are all there, the snapshot holds every stock
    expect(result.sample).toMatchObject({ stocks: 12, days: 80, snapshot_stocks: 12 });
    expect(result.sample.rows).toBeGreaterThan(12 * 80);
    for (const k of ['load_s', 'indicators_s', 'indicators_max_stall_ms', 'snapshot_s', 'snapshot_max_stall_ms'] as const) expect(result.sample[k], k).toBeGreaterThanOrEqual(0);
    // And the KRX counts: 2 files, 4 rows loaded (3 bars and a halt), the KONEX rows skipped, one halt
    expect(result.krx).toMatchObject({ files: 2, rows_ok: 4, skipped: 2, halts: 1, rejected: 0 });
    // And the market stays in the data dir for the bench daemon
    const db = await openStore({ data_dir: sampleDataDir });
    try {
      expect(await db.all<{ n: number }>('SELECT COUNT(*) AS n FROM stocks')).toEqual([{ n: 12 }]);
    } finally {
      await db.close();
    }
    const rows = marketRows(result);
    const krx = (metric: string) => rows.find((r) => r.scenario === 'market load (KRX)' && r.metric === metric)?.measured;
    expect([krx('files'), krx('rows loaded'), krx('rows skipped'), krx('halt records'), krx('rows rejected')]).toEqual([2, 4, 2, 1, 0]);
    expect(rows.find((r) => r.metric === 'indicators max stall')?.unit).toBe('ms');
  }, 60_000);

  it('finds the KRX folder from BENCH_KRX or beside the repository, and says when there is none', () => {
    expect(krxFolder({ BENCH_KRX: join(dir, 'krx') })).toBe(join(dir, 'krx'));
    expect(krxFolder({ BENCH_KRX: '' })).toBeNull();
    expect(krxFolder({}, join(dir, 'nowhere', 'repo'))).toBeNull();
    expect(marketRows({ sample: { stocks: 1, days: 1, rows: 1, load_s: 1, rows_per_s: 1, index_s: 0, indicators_s: 0, indicators_max_stall_ms: 0, snapshot_s: 0, snapshot_max_stall_ms: 0, snapshot_stocks: 1, total_s: 1, atomic: true, publish_s: 0 } }, 'no KRX folder').at(-1)).toMatchObject({ scenario: 'market load (KRX)', measured: null, note: 'no KRX folder' });
  });
});
