/**
 * A KRX Open API for benchmarks, on loopback: the protocol of test/fakes/krx-openapi-server.ts
 * (`GET /svc/apis/<service>?basDd=YYYYMMDD`, header `AUTH_KEY`, `{"OutBlock_1": [...]}` with every
 * value a string), serving any trading day from the real listed universe of 2026-03-20
 * (loaders/sample/universe-data.ts: 2,769 KOSPI and KOSDAQ issues with their shares and closes),
 * prices moved by a deterministic factor per date. Counts the calls it answered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listedUniverse } from '../../loaders/sample/universe.js';

/** A running bench fake. */
export interface BenchKrx {
  url: string;
  calls(): number;
  close(): Promise<void>;
}

function factorOf(bas: string): number {
  const seed = Number(bas) % 997;
  return 1 + ((seed % 41) - 20) / 1000;
}

function tradeRows(bas: string, market: 'KOSPI' | 'KOSDAQ'): Record<string, string>[] {
  const f = factorOf(bas);
  return listedUniverse().filter((i) => i.record.market === market).map((i) => {
    const close = Math.max(1, Math.round(i.close * f));
    const halted = i.halted;
    const shares = i.record.shares_outstanding ?? 0;
    return {
      BAS_DD: bas, ISU_CD: i.record.code, ISU_NM: i.record.name, MKT_NM: i.record.board === 'KOSDAQ GLOBAL' ? 'KOSDAQ GLOBAL' : market,
      SECT_TP_NM: i.record.board === 'KOSDAQ GLOBAL' ? '' : (i.record.board ?? ''), TDD_CLSPRC: String(close), CMPPREVDD_PRC: '0', FLUC_RT: '0.00',
      TDD_OPNPRC: halted ? '0' : String(close), TDD_HGPRC: halted ? '0' : String(Math.round(close * 1.01)), TDD_LWPRC: halted ? '0' : String(Math.round(close * 0.99)),
      ACC_TRDVOL: halted ? '0' : '123456', ACC_TRDVAL: halted ? '0' : String(123456 * close), MKTCAP: String(close * shares), LIST_SHRS: String(shares),
    };
  });
}

function indexRows(bas: string, name: string, level: number): Record<string, string>[] {
  const v = (level * factorOf(bas)).toFixed(2);
  return [{ BAS_DD: bas, IDX_CLSS: name, IDX_NM: name, CLSPRC_IDX: v, CMPPREVDD_IDX: '0', FLUC_RT: '0', OPNPRC_IDX: v, HGPRC_IDX: v, LWPRC_IDX: v, ACC_TRDVOL: '1000000', ACC_TRDVAL: '1000000000', MKTCAP: '1' }];
}

/** Start the fake; `key` is the only key it accepts. */
export async function startBenchKrx(key: string): Promise<BenchKrx> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    calls++;
    const url = new URL(req.url ?? '/', 'http://fake');
    const bas = url.searchParams.get('basDd') ?? '';
    const service = url.pathname.replace(/^\/svc\/apis\//, '');
    if (req.headers.auth_key !== key) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ respMsg: 'Unauthorized API Call', respCode: '401' }));
    }
    const rows = service === 'sto/stk_bydd_trd' ? tradeRows(bas, 'KOSPI')
      : service === 'sto/ksq_bydd_trd' ? tradeRows(bas, 'KOSDAQ')
        : service === 'idx/kospi_dd_trd' ? indexRows(bas, '코스피', 5781.2)
          : service === 'idx/kosdaq_dd_trd' ? indexRows(bas, '코스닥', 1161.52)
            : [];
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ OutBlock_1: rows }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/svc/apis`,
    calls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
