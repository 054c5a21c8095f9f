/**
 * FinanceDataReader's KRX cache for benchmarks, on loopback: the layout of
 * test/fakes/fdr-cache-server.ts (`GET <base>/listing/krx/YYYY-MM-DD.csv`, `<base>/index/ks11/…`,
 * `<base>/index/kq11/…`, `text/plain; charset=utf-8`, 404 `404: Not Found` for anything else),
 * serving any date from the real listed universe of 2026-03-20 (loaders/sample/universe-data.ts:
 * 2,769 issues) in the cache's listing columns, prices moved by a deterministic factor per date.
 * Counts the calls it answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listedUniverse } from '../../loaders/sample/universe.js';

/** A running bench fake. */
export interface BenchFdr {
  /** The base an operator would set (ends with `/data`). */
  url: string;
  calls(): number;
  close(): Promise<void>;
}

const LISTING_HEADER = '\uFEFF,Code,ISU_CD,Name,Market,Dept,Close,ChangeCode,Changes,ChagesRatio,Open,High,Low,Volume,Amount,Marcap,Stocks,MarketId';
const INDEX_HEADER = '\uFEFFDate,Close,UpDown,Comp,Change,Open,High,Low,Volume,Amount,MarCap';

function factorOf(date: string): number {
  const seed = Number(date.replace(/-/g, '')) % 997;
  return 1 + ((seed % 41) - 20) / 1000;
}

function listing(date: string): string {
  const f = factorOf(date);
  const csvName = (s: string) => (/[",]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const rows = listedUniverse().map((i, n) => {
    const close = Math.max(1, Math.round(i.close * f));
    const shares = i.record.shares_outstanding ?? 0;
    const market = i.record.market === 'KOSPI' ? 'KOSPI' : i.record.board === 'KOSDAQ GLOBAL' ? 'KOSDAQ GLOBAL' : 'KOSDAQ';
    const open = i.halted ? 0 : close;
    const high = i.halted ? 0 : Math.round(close * 1.01);
    const low = i.halted ? 0 : Math.round(close * 0.99);
    const volume = i.halted ? 0 : 123456;
    return [n, i.record.code, `KR7${i.record.code}00${n % 10}`, csvName(i.record.name), market, '', close, 3, 0, '0.00', open, high, low, volume, volume * close, close * shares, shares, i.record.market === 'KOSPI' ? 'STK' : 'KSQ'].join(',');
  });
  return `${LISTING_HEADER}\n${rows.join('\n')}\n`;
}

function indexDay(date: string, level: number): string {
  const v = (level * factorOf(date)).toFixed(2);
  return `${INDEX_HEADER}\n${date},${v},2,0.0,0.0,${v},${v},${v},350691927,6958648750080,1963454272081159.0\n`;
}

/** Start the fake on a loopback port. */
export async function startBenchFdr(): Promise<BenchFdr> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    calls++;
    const m = /^\/data\/(listing\/krx|index\/ks11|index\/kq11)\/(\d{4}-\d{2}-\d{2})\.csv$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      return res.end('404: Not Found');
    }
    const [, kind, date] = m as unknown as [string, string, string];
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(kind === 'listing/krx' ? listing(date) : indexDay(date, kind === 'index/ks11' ? 2398.94 : 679.24));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/data`,
    calls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
