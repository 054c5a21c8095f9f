/**
 * A local KRX Open API following the provider's protocol: `GET /svc/apis/<service>?basDd=YYYYMMDD`
 * with the key in the `AUTH_KEY` header (kgcrom/cluefin `cluefin_openapi/krx/_client.py`), answers
 * `{"OutBlock_1": [...]}` with every value a string (field names as in cluefin's `_stock_types.py`
 * and `_index_types.py`, and KRX's service pages), and for a key not approved for a service HTTP 401
 * `{"respMsg":"Unauthorized API Call","respCode":"401"}` (github.com/NomaDamas/k-skill/issues/99).
 *
 * It serves the repository's real KRX files (test/fixtures/krx, the FinanceDataReader cache copy)
 * mapped to the API's field names: listing/YYYY-MM-DD.csv → sto/stk_bydd_trd (KOSPI rows),
 * sto/ksq_bydd_trd (KOSDAQ and KOSDAQ GLOBAL rows); index/<market>/YYYY.csv → idx/*_dd_trd (the
 * composite as 코스피 / 코스닥 beside another index of the family); desc + listing →
 * sto/*_isu_base_info. A date without a file answers `{"OutBlock_1": []}`, unless `synthesize` is
 * on: then any trading day is served from the last fixture day with prices moved deterministically
 * (benchmarks). Failures are injected per call (`fail`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { csvRows, headerIndex } from '../../loaders/csv.js';
import { krxFile } from '../helpers/krx-fixtures.js';

/** What the fake answers instead of data, for one call. */
export type InjectedFailure =
  | { kind: 'status'; status: number; body?: string; contentType?: string }
  | { kind: 'html' }
  | { kind: 'empty' }
  | { kind: 'truncated' }
  | { kind: 'hang' }
  | { kind: 'malformed'; fraction: number };

/** Options of the fake. */
export interface FakeKrxOptions {
  /** Keys and the services each is approved for ('*': all). */
  keys: Record<string, readonly string[] | '*'>;
  /** Serve any trading day (from the last fixture day, prices varied by date). */
  synthesize?: boolean;
}

/** A running fake. */
export interface FakeKrx {
  url: string;
  /** Calls received, in order: service and basDd. */
  calls: { service: string; basDd: string }[];
  /** Queue failures for the next calls of `service` (or any service with '*'). */
  fail(service: string, ...failures: InjectedFailure[]): void;
  /** Called on each call before answering (a test kills a worker mid-backfill from here). */
  onCall?: (service: string, basDd: string) => void;
  /** Correct one issue's close on one date to that day's low (a correction published later). */
  correct(date: string, code: string): void;
  close(): Promise<void>;
}

type Row = Record<string, string>;

function readCsv(relative: string): Row[] {
  const text = readFileSync(krxFile(relative), 'utf8').replace(/^\uFEFF/, '');
  const rows: Row[] = [];
  let header: string[] | null = null;
  for (const row of csvRows(text)) {
    if (!header) { header = row.fields; headerIndex(header); continue; }
    rows.push(Object.fromEntries(header.map((h, i) => [h, row.fields[i] ?? ''])));
  }
  return rows;
}

const LISTING_DATES = readdirSync(krxFile('listing')).map((f) => f.slice(0, 10)).sort();

/** The daily-trade rows of a fixture day in the API's field names. */
function tradeRows(date: string): Row[] {
  return readCsv(`listing/${date}.csv`).map((r) => ({
    BAS_DD: date.replaceAll('-', ''), ISU_CD: r.Code!, ISU_NM: r.Name!, MKT_NM: r.Market!, SECT_TP_NM: r.Dept!,
    TDD_CLSPRC: r.Close!, CMPPREVDD_PRC: r.Changes!, FLUC_RT: r.ChagesRatio!, TDD_OPNPRC: r.Open!, TDD_HGPRC: r.High!,
    TDD_LWPRC: r.Low!, ACC_TRDVOL: r.Volume!, ACC_TRDVAL: r.Amount!, MKTCAP: r.Marcap!, LIST_SHRS: r.Stocks!,
  }));
}

/** Prices of the last fixture day moved by a small deterministic factor per date (synthesized days). */
function synthesizedRows(date: string, base: Row[]): Row[] {
  const seed = Number(date.replaceAll('-', '')) % 997;
  const factor = 1 + ((seed % 41) - 20) / 1000;
  const px = (v: string) => (v === '0' || v === '' ? v : String(Math.max(1, Math.round(Number(v) * factor))));
  return base.map((r) => {
    const o = Number(px(r.TDD_OPNPRC!)); const c = Number(px(r.TDD_CLSPRC!));
    const hi = Math.max(Number(px(r.TDD_HGPRC!)), o, c); const lo = Math.min(Number(px(r.TDD_LWPRC!)), o === 0 ? Infinity : o, c);
    const halted = r.TDD_OPNPRC === '0';
    return { ...r, BAS_DD: date.replaceAll('-', ''), TDD_CLSPRC: String(c), TDD_OPNPRC: halted ? '0' : String(o), TDD_HGPRC: halted ? '0' : String(hi), TDD_LWPRC: halted ? '0' : String(lo === Infinity ? c : lo) };
  });
}

function indexRows(family: 'kospi' | 'kosdaq', date: string, synthesize: boolean): Row[] {
  const year = date.slice(0, 4);
  let rows: Row[] = [];
  try { rows = readCsv(`index/${family}/${year}.csv`); } catch { rows = []; }
  let r = rows.find((x) => x.Date === date);
  if (!r && synthesize) r = readCsv(`index/${family}/2026.csv`).at(-1);
  if (!r) return [];
  const name = family === 'kospi' ? '코스피' : '코스닥';
  const row = (idxName: string, scale: number): Row => ({
    BAS_DD: date.replaceAll('-', ''), IDX_CLSS: family === 'kospi' ? 'KOSPI' : 'KOSDAQ', IDX_NM: idxName,
    CLSPRC_IDX: (Number(r.Close) * scale).toFixed(2), CMPPREVDD_IDX: r.Comp!, FLUC_RT: r.UpDown!,
    OPNPRC_IDX: (Number(r.Open) * scale).toFixed(2), HGPRC_IDX: (Number(r.High) * scale).toFixed(2), LWPRC_IDX: (Number(r.Low) * scale).toFixed(2),
    ACC_TRDVOL: r.Volume!, ACC_TRDVAL: r.Amount!, MKTCAP: r.MarCap!,
  });
  // The family's answer lists several indices; the composite is not necessarily first.
  return [row(`${name} 200`, 0.13), row(name, 1)];
}

function baseInfoRows(market: 'KOSPI' | 'KOSDAQ'): Row[] {
  const listing = new Map(readCsv(`listing/${LISTING_DATES.at(-1)!}.csv`).map((r) => [r.Code!, r]));
  return readCsv('desc/2026-03-20.csv').filter((d) => (market === 'KOSPI' ? d.Market === 'KOSPI' : d.Market?.startsWith('KOSDAQ'))).map((d) => {
    const l = listing.get(d.Code!);
    return {
      ISU_CD: l?.ISU_CD ?? '', ISU_SRT_CD: d.Code!, ISU_NM: d.Name!, ISU_ABBRV: d.Name!, ISU_ENG_NM: `${d.Code} Co., Ltd.`,
      LIST_DD: (d.ListingDate ?? '').replaceAll('-', ''), MKT_TP_NM: d.Market!, SECUGRP_NM: '주권', SECT_TP_NM: l?.Dept ?? '',
      KIND_STKCERT_TP_NM: d.Code!.endsWith('0') ? '보통주' : '우선주', PARVAL: '100', LIST_SHRS: l?.Stocks ?? '',
    };
  });
}

/** Start the fake on 127.0.0.1, port 0. */
export async function startFakeKrx(options: FakeKrxOptions): Promise<FakeKrx> {
  const queued = new Map<string, InjectedFailure[]>();
  const corrections = new Map<string, Set<string>>();
  const cache = new Map<string, Row[]>();
  const calls: FakeKrx['calls'] = [];
  const hanging = new Set<ServerResponse>();
  let fake!: FakeKrx;

  const trades = (date: string): Row[] => {
    let rows = cache.get(date);
    if (!rows) {
      if (LISTING_DATES.includes(date)) rows = tradeRows(date);
      else if (options.synthesize) rows = synthesizedRows(date, cache.get('base') ?? (cache.set('base', tradeRows(LISTING_DATES.at(-1)!)), cache.get('base')!));
      else rows = [];
      cache.set(date, rows);
    }
    const fix = corrections.get(date);
    return fix ? rows.map((r) => (fix.has(r.ISU_CD!) ? { ...r, TDD_CLSPRC: r.TDD_LWPRC! } : r)) : rows;
  };

  const rowsFor = (service: string, date: string): Row[] | null => {
    switch (service) {
      case 'sto/stk_bydd_trd': return trades(date).filter((r) => r.MKT_NM === 'KOSPI');
      case 'sto/ksq_bydd_trd': return trades(date).filter((r) => r.MKT_NM?.startsWith('KOSDAQ'));
      case 'sto/knx_bydd_trd': return trades(date).filter((r) => r.MKT_NM === 'KONEX');
      case 'idx/kospi_dd_trd': return indexRows('kospi', date, options.synthesize ?? false);
      case 'idx/kosdaq_dd_trd': return indexRows('kosdaq', date, options.synthesize ?? false);
      case 'sto/stk_isu_base_info': return baseInfoRows('KOSPI');
      case 'sto/ksq_isu_base_info': return baseInfoRows('KOSDAQ');
      default: return null;
    }
  };

  const send = (res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const service = url.pathname.replace(/^\/svc\/apis\//, '');
    const bas = url.searchParams.get('basDd') ?? '';
    calls.push({ service, basDd: bas });
    fake.onCall?.(service, bas);
    const key = req.headers.auth_key;
    const approved = typeof key === 'string' ? options.keys[key] : undefined;
    if (req.method !== 'GET' || !url.pathname.startsWith('/svc/apis/')) return send(res, 404, '<html><body>404 Not Found</body></html>', 'text/html');
    if (!approved || (approved !== '*' && !approved.includes(service))) return send(res, 401, JSON.stringify({ respMsg: 'Unauthorized API Call', respCode: '401' }));
    const failure = queued.get(service)?.shift() ?? queued.get('*')?.shift();
    if (failure?.kind === 'hang') { hanging.add(res); return; }
    if (failure?.kind === 'status') return send(res, failure.status, failure.body ?? '', failure.contentType ?? 'text/plain');
    if (failure?.kind === 'html') return send(res, 200, '<!DOCTYPE html><html><head><title>Error - KRX | Market Data System</title></head><body>점검중</body></html>', 'text/html; charset=utf-8');
    if (!/^\d{8}$/.test(bas)) return send(res, 200, JSON.stringify({ OutBlock_1: [] }));
    const date = `${bas.slice(0, 4)}-${bas.slice(4, 6)}-${bas.slice(6, 8)}`;
    let rows = rowsFor(service, date);
    if (rows === null) return send(res, 404, '<html><body>404 Not Found</body></html>', 'text/html');
    if (failure?.kind === 'empty') rows = [];
    if (failure?.kind === 'malformed') {
      const every = Math.max(1, Math.round(1 / failure.fraction));
      rows = rows.map((r, i) => (i % every === 0 ? { ...r, TDD_CLSPRC: 'N/A' } : r));
    }
    const body = JSON.stringify({ OutBlock_1: rows });
    if (failure?.kind === 'truncated') return send(res, 200, body.slice(0, Math.floor(body.length / 2)));
    send(res, 200, body);
  };

  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake = {
    url: `http://127.0.0.1:${port}/svc/apis`,
    calls,
    fail(service, ...failures) {
      queued.set(service, [...(queued.get(service) ?? []), ...failures]);
    },
    correct(date, code) {
      const m = corrections.get(date) ?? new Set<string>();
      m.add(code);
      corrections.set(date, m);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
