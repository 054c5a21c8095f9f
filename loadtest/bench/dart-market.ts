/**
 * OpenDART for benchmarks: the protocol fake of the tests (test/fakes/dart-server.ts) loaded with
 * the real listed universe of 2026-03-20 (loaders/sample/universe-data.ts: 2,769 issues), each a
 * company of corpCode.xml with the reports of the periods a run asks for. Every report has the
 * key accounts, the accounts only full statements carry (gross profit, operating cash flow, cash,
 * long-term borrowings) and thirty more lines, so a full statement is about as long as a real one.
 */
import { listedUniverse } from '../../loaders/sample/universe.js';
import { reportDeadline, type ReportPeriod } from '../../daemon/sources/dart/periods.js';
import { startFakeDart, type FakeDart, type FakeDartCompany, type FakeDartReport } from '../../test/fakes/dart-server.js';

const B = 1e9;
const FILLER = Array.from({ length: 30 }, (_, i) => `기타항목${i + 1}`);

/** The receipt number of a report filed a few days before its deadline. */
function rceptNo(p: ReportPeriod, serial: number): string {
  const filed = new Date(Date.parse(`${reportDeadline(p)}T00:00:00Z`) - 3 * 86_400_000).toISOString().slice(0, 10);
  return `${filed.replace(/-/g, '')}${String(serial % 1_000_000).padStart(6, '0')}`;
}

/** One company's report of one period. */
function report(corp: string, p: ReportPeriod, serial: number, scale: number): FakeDartReport {
  const flow = (q: number): [number, number] => [q * scale * B, q * scale * B * p.quarter];
  const accounts: FakeDartReport['accounts'] = {
    매출액: flow(100), 영업이익: flow(10), 당기순이익: flow(8), 자산총계: [1000 * scale * B], 부채총계: [400 * scale * B], 자본총계: [600 * scale * B],
    유동자산: [300 * scale * B], 유동부채: [150 * scale * B], 이익잉여금: [200 * scale * B],
    매출총이익: flow(40), 영업활동현금흐름: [20 * scale * B * p.quarter, 20 * scale * B * p.quarter], 현금및현금성자산: [50 * scale * B], 장기차입금: [30 * scale * B],
  };
  for (const name of FILLER) accounts[name] = [scale * B];
  return { corp_code: corp, bsns_year: p.year, reprt_code: p.reprt_code as FakeDartReport['reprt_code'], rcept_no: rceptNo(p, serial), fs: 'CFS', accounts };
}

/** A running bench OpenDART with the universe's companies and their reports of `periods`. */
export async function startBenchDart(key: string, periods: readonly ReportPeriod[]): Promise<FakeDart & { companies: FakeDartCompany[] }> {
  const companies: FakeDartCompany[] = listedUniverse().map((i, n) => ({ corp_code: String(100_000 + n).padStart(8, '0'), corp_name: i.record.name, stock_code: i.record.code }));
  let serial = 0;
  const reports = companies.flatMap((c, n) => periods.map((p) => report(c.corp_code, p, ++serial, 1 + (n % 7))));
  const fake = await startFakeDart({ keys: [key], companies, reports });
  return Object.assign(fake, { companies });
}
