/**
 * A local fake of the KIS (한국투자증권) Open API, REST and WebSocket on one loopback port,
 * following the provider's public formats as its own client code writes and reads them
 * (github.com/koreainvestment/open-trading-api):
 *
 * - POST /oauth2/tokenP {grant_type, appkey, appsecret} → {access_token, token_type:"Bearer",
 *   expires_in, access_token_token_expired:"YYYY-MM-DD HH:MM:SS"} (`examples_llm/kis_auth.py`
 *   auth(), `examples_llm/auth/auth_token/chk_auth_token.py`). A second issuance within a minute
 *   answers 403 {error_code:"EGW00133", error_description:"접근토큰 발급 잠시 후 다시 시도하세요(1분당 1회)"}
 *   (the repository's README "토큰 재발급 - 1분당 1회"; the code as users quote it, Soju06/python-kis#24).
 * - POST /oauth2/Approval {grant_type, appkey, secretkey} → {approval_key} (kis_auth.py auth_ws()).
 * - GET /uapi/domestic-stock/v1/quotations/intstock-multprice, headers authorization "Bearer …",
 *   appkey, appsecret, tr_id FHKST11300006, custtype; query FID_COND_MRKT_DIV_CODE_n /
 *   FID_INPUT_ISCD_n, n = 1…30 → {rt_cd:"0", msg_cd, msg1, output:[…]} with the row fields of
 *   `intstock_multprice/chk_intstock_multprice.py` (every value a string). Over the rate:
 *   HTTP 500 {rt_cd:"1", msg_cd:"EGW00201", msg1:"초당 거래건수를 초과하였습니다."} (backtester
 *   `kis_backtest/providers/kis/data.py`, `backtester/examples/README.md`); an expired token:
 *   {rt_cd:"1", msg_cd:"EGW00123", msg1:"기간이 만료된 token 입니다."} (`legacy/rest/current_price_samle.py`).
 * - WebSocket /tryitout (kis_auth.py KISWebSocket(api_url="/tryitout")): requests
 *   {header:{approval_key, custtype, tr_type:"1"|"2", "content-type"}, body:{input:{tr_id, tr_key}}}
 *   (kis_auth.py data_fetch()); acknowledgements {header:{tr_id, tr_key, encrypt:"N"},
 *   body:{rt_cd, msg_cd, msg1:"SUBSCRIBE SUCCESS"|"UNSUBSCRIBE SUCCESS", output:{iv, key}}}
 *   (kis_auth.py system_resp(), `domestic_bond/bond_ccnl/chk_bond_ccnl.py`); over 41
 *   registrations {rt_cd:"1", msg_cd:"OPSP0008", msg1:"MAX SUBSCRIBE OVER"}; data frames
 *   `0|H0STCNT0|001|005930^093354^71900^…` with the 46 fields of `ccnl_krx/ccnl_krx.py` and the
 *   59 of `asking_price_krx/asking_price_krx.py`; `{header:{tr_id:"PINGPONG", datetime}}` every
 *   few seconds, which the client answers (kis_auth.py: `ws.pong(raw)`).
 *
 * Faults a test can switch on: a silent socket (open, nothing sent), dropped connections,
 * expired tokens, rate-limit errors, failing REST calls, and raw frames of any layout.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** One stock's state in the fake market. */
export interface FakeQuote {
  name: string;
  price: number;
  prevClose: number;
  volume: number;
  open: number;
  high: number;
  low: number;
}

/** Settings of the fake. */
export interface KisFakeOptions {
  appKey: string;
  appSecret: string;
  /** Calls a second per key before EGW00201 (default 20). */
  callsPerSecond?: number;
  /** Least time between two token issuances (default 60 s, the provider's). */
  tokenIntervalMs?: number;
  /** PINGPONG period (default 10 s). */
  pingMs?: number;
  /** Registrations per session (default 41). */
  maxRegistrations?: number;
}

/** What the fake saw. */
export interface KisFakeStats {
  tokenIssues: number;
  tokenRefusals: number;
  approvals: number;
  multiPriceCalls: number;
  rateLimited: number;
  expiredAnswers: number;
  connections: number;
  /** Most WebSocket sessions open at once. */
  maxOpenSessions: number;
  pongs: number;
  overLimit: number;
  registerRequests: number;
  /** Largest number of calls that fell in one second. */
  maxCallsInOneSecond: number;
}

/** A running fake. */
export interface KisFake {
  restUrl: string;
  wsUrl: string;
  market: Map<string, FakeQuote>;
  stats: KisFakeStats;
  /** Codes registered for real-time trades on the open sessions. */
  registered(trId?: string): string[];
  openSessions(): number;
  /** A trade: updates the market and sends an H0STCNT0 frame to sessions registered for the code. */
  trade(code: string, price: number, addVolume?: number): void;
  /** An order book frame (H0STASP0) for the code. */
  book(code: string, asks: [number, number][], bids: [number, number][]): void;
  /** A raw text frame to every session. */
  sendRaw(text: string): void;
  /** Send PINGPONG now. */
  ping(): void;
  /** Sessions stay open but nothing is sent (no frames, no PINGPONG, no acknowledgements). */
  silence(on: boolean): void;
  /** Close every session abruptly (the client must reconnect with backoff). */
  dropConnections(): void;
  /** Every token issued so far is expired from now on. */
  expireTokens(): void;
  /** The next `n` multi-price calls answer EGW00201. */
  rateLimitNext(n: number): void;
  /** Multi-price calls fail with HTTP 500 (a generic error) while on. */
  failRest(on: boolean): void;
  /** Rows the next multi-price answer carries as they are (bad input tests). */
  injectRows(rows: unknown[]): void;
  close(): Promise<void>;
}

const TRADE_FIELDS = 46;
const BOOK_FIELDS = 59;

const kstParts = (ms: number) => {
  const iso = new Date(ms + 9 * 3_600_000).toISOString();
  return { date: iso.slice(0, 10).replaceAll('-', ''), time: iso.slice(11, 19).replaceAll(':', ''), stamp: iso.slice(0, 19).replace('T', ' ') };
};

/** Start the fake on a loopback port. */
export async function startKisFake(options: KisFakeOptions): Promise<KisFake> {
  const callsPerSecond = options.callsPerSecond ?? 20;
  const tokenIntervalMs = options.tokenIntervalMs ?? 60_000;
  const maxRegistrations = options.maxRegistrations ?? 41;
  const market = new Map<string, FakeQuote>();
  const tokens = new Map<string, { expired: boolean }>();
  const approvals = new Set<string>();
  const stats: KisFakeStats = {
    tokenIssues: 0, tokenRefusals: 0, approvals: 0, multiPriceCalls: 0, rateLimited: 0, expiredAnswers: 0,
    connections: 0, maxOpenSessions: 0, pongs: 0, overLimit: 0, registerRequests: 0, maxCallsInOneSecond: 0,
  };
  let lastIssue = -Infinity;
  let rateLimitLeft = 0;
  let restFailing = false;
  let injected: unknown[] | null = null;
  let silent = false;
  const callTimes: number[] = [];
  const sessions = new Map<WebSocket, Set<string>>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return {};
    }
  };

  function row(code: string, q: FakeQuote): Record<string, string> {
    const diff = q.price - q.prevClose;
    return {
      kospi_kosdaq_cls_name: 'KOSPI', mrkt_trtm_cls_name: '', hour_cls_code: '0', inter_shrn_iscd: code, inter_kor_isnm: q.name,
      inter2_prpr: String(q.price), inter2_prdy_vrss: String(diff), prdy_vrss_sign: diff > 0 ? '2' : diff < 0 ? '5' : '3',
      prdy_ctrt: ((diff / q.prevClose) * 100).toFixed(2), acml_vol: String(q.volume), inter2_oprc: String(q.open), inter2_hgpr: String(q.high),
      inter2_lwpr: String(q.low), inter2_llam: String(Math.ceil(q.prevClose * 0.7)), inter2_mxpr: String(Math.floor(q.prevClose * 1.3)),
      inter2_askp: String(q.price), inter2_bidp: String(q.price), seln_rsqn: '0', shnu_rsqn: '0', total_askp_rsqn: '0', total_bidp_rsqn: '0',
      acml_tr_pbmn: String(q.volume * q.price), inter2_prdy_clpr: String(q.prevClose), oprc_vrss_hgpr_rate: '0', intr_antc_cntg_vrss: '0',
      intr_antc_cntg_vrss_sign: '3', intr_antc_cntg_prdy_ctrt: '0', intr_antc_vol: '0', inter2_sdpr: String(q.prevClose),
    };
  }

  async function multiPrice(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const h = req.headers;
    const auth = String(h.authorization ?? '');
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (h.appkey !== options.appKey || h.appsecret !== options.appSecret) return send(res, 500, { rt_cd: '1', msg_cd: 'EGW00105', msg1: '유효하지 않은 AppSecret입니다.' });
    if (h.tr_id !== 'FHKST11300006') return send(res, 500, { rt_cd: '1', msg_cd: 'EGW00203', msg1: 'tr_id가 없습니다.' });
    const t = tokens.get(token);
    if (!t) return send(res, 500, { rt_cd: '1', msg_cd: 'EGW00121', msg1: '유효하지 않은 token 입니다.' });
    const now = Date.now();
    callTimes.push(now);
    while (callTimes.length && callTimes[0]! <= now - 1000) callTimes.shift();
    stats.maxCallsInOneSecond = Math.max(stats.maxCallsInOneSecond, callTimes.length);
    if (rateLimitLeft > 0 || callTimes.length > callsPerSecond) {
      rateLimitLeft = Math.max(0, rateLimitLeft - 1);
      stats.rateLimited++;
      return send(res, 500, { rt_cd: '1', msg_cd: 'EGW00201', msg1: '초당 거래건수를 초과하였습니다.' });
    }
    if (t.expired) {
      stats.expiredAnswers++;
      return send(res, 500, { rt_cd: '1', msg_cd: 'EGW00123', msg1: '기간이 만료된 token 입니다.' });
    }
    if (restFailing) return send(res, 500, { rt_cd: '1', msg_cd: 'EGW00500', msg1: '서버 오류' });
    stats.multiPriceCalls++;
    const codes: string[] = [];
    for (let n = 1; n <= 30; n++) {
      const code = url.searchParams.get(`FID_INPUT_ISCD_${n}`);
      if (code) codes.push(code);
    }
    if (!codes.length) return send(res, 500, { rt_cd: '1', msg_cd: 'OPSQ2001', msg1: 'ERROR INPUT FIELD NOT FOUND [FID_INPUT_ISCD_1]' });
    const output = injected ?? codes.flatMap((c) => (market.has(c) ? [row(c, market.get(c)!)] : []));
    injected = null;
    send(res, 200, { rt_cd: '0', msg_cd: 'MCA00000', msg1: '정상처리 되었습니다.', output });
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    void (async () => {
      if (req.method === 'POST' && url.pathname === '/oauth2/tokenP') {
        const body = await readJson(req);
        if (body.appkey !== options.appKey || body.appsecret !== options.appSecret) return send(res, 403, { error_code: 'EGW00103', error_description: '유효하지 않은 AppKey입니다.' });
        if (Date.now() - lastIssue < tokenIntervalMs) {
          stats.tokenRefusals++;
          return send(res, 403, { error_code: 'EGW00133', error_description: '접근토큰 발급 잠시 후 다시 시도하세요(1분당 1회)' });
        }
        lastIssue = Date.now();
        stats.tokenIssues++;
        const token = randomBytes(24).toString('base64url');
        tokens.set(token, { expired: false });
        return send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 86_400, access_token_token_expired: kstParts(Date.now() + 86_400_000).stamp });
      }
      if (req.method === 'POST' && url.pathname === '/oauth2/Approval') {
        const body = await readJson(req);
        if (body.appkey !== options.appKey || body.secretkey !== options.appSecret) return send(res, 403, { error_code: 'EGW00103', error_description: '유효하지 않은 AppKey입니다.' });
        stats.approvals++;
        const key = randomBytes(18).toString('hex');
        approvals.add(key);
        return send(res, 200, { approval_key: key });
      }
      if (req.method === 'GET' && url.pathname === '/uapi/domestic-stock/v1/quotations/intstock-multprice') return multiPrice(req, res, url);
      send(res, 404, { rt_cd: '1', msg_cd: 'EGW00002', msg1: 'not found' });
    })();
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://fake').pathname !== '/tryitout') return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });

  const ack = (trId: string, trKey: string, ok: boolean, msgCd: string, msg1: string) =>
    JSON.stringify({ header: { tr_id: trId, tr_key: trKey, encrypt: 'N' }, body: { rt_cd: ok ? '0' : '1', msg_cd: msgCd, msg1, ...(ok ? { output: { iv: randomBytes(8).toString('hex'), key: randomBytes(16).toString('hex') } } : {}) } });

  wss.on('connection', (ws) => {
    stats.connections++;
    const regs = new Set<string>();
    sessions.set(ws, regs);
    stats.maxOpenSessions = Math.max(stats.maxOpenSessions, sessions.size);
    ws.on('close', () => sessions.delete(ws));
    ws.on('error', () => undefined);
    ws.on('pong', (data) => {
      if (data.toString().includes('PINGPONG')) stats.pongs++;
    });
    ws.on('message', (data) => {
      let msg: { header?: Record<string, string>; body?: { input?: Record<string, string> } };
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (msg.header?.tr_id === 'PINGPONG') return void stats.pongs++;
      const trId = msg.body?.input?.tr_id ?? '';
      const trKey = msg.body?.input?.tr_key ?? '';
      if (!approvals.has(msg.header?.approval_key ?? '')) return silent || ws.send(ack(trId, trKey, false, 'OPSP0011', 'invalid approval : NOT FOUND'));
      const key = `${trId}|${trKey}`;
      if (msg.header?.tr_type === '1') {
        stats.registerRequests++;
        if (regs.has(key)) return silent || ws.send(ack(trId, trKey, false, 'OPSP0002', 'ALREADY IN SUBSCRIBE'));
        if (regs.size >= maxRegistrations) {
          stats.overLimit++;
          return silent || ws.send(ack(trId, trKey, false, 'OPSP0008', 'MAX SUBSCRIBE OVER'));
        }
        // A silent server still takes the registration; it just never says so.
        regs.add(key);
        return silent || ws.send(ack(trId, trKey, true, 'OPSP0000', 'SUBSCRIBE SUCCESS'));
      }
      if (msg.header?.tr_type === '2') {
        regs.delete(key);
        if (!silent) ws.send(ack(trId, trKey, true, 'OPSP0001', 'UNSUBSCRIBE SUCCESS'));
      }
    });
  });

  function ping(): void {
    if (silent) return;
    const frame = JSON.stringify({ header: { tr_id: 'PINGPONG', datetime: `${kstParts(Date.now()).date}${kstParts(Date.now()).time}` } });
    for (const ws of sessions.keys()) ws.send(frame);
  }
  const pinger = setInterval(ping, options.pingMs ?? 10_000);
  pinger.unref();

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    restUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    market,
    stats,
    registered: (trId = 'H0STCNT0') => [...sessions.values()].flatMap((r) => [...r].filter((k) => k.startsWith(`${trId}|`)).map((k) => k.slice(trId.length + 1))),
    openSessions: () => sessions.size,
    trade(code, price, addVolume = 100) {
      const q = market.get(code);
      if (!q) throw new Error(`fake: unknown ${code}`);
      q.price = price;
      q.volume += addVolume;
      q.high = Math.max(q.high, price);
      q.low = Math.min(q.low, price);
      if (silent) return;
      const { date, time } = kstParts(Date.now());
      const f: string[] = new Array<string>(TRADE_FIELDS).fill('0');
      f[0] = code; f[1] = time; f[2] = String(price); f[3] = price >= q.prevClose ? '2' : '5'; f[4] = String(price - q.prevClose);
      f[5] = (((price - q.prevClose) / q.prevClose) * 100).toFixed(2); f[7] = String(q.open); f[8] = String(q.high); f[9] = String(q.low);
      f[12] = String(addVolume); f[13] = String(q.volume); f[14] = String(q.volume * price); f[33] = date; f[43] = '0';
      const frame = `0|H0STCNT0|001|${f.join('^')}`;
      for (const [ws, regs] of sessions) if (regs.has(`H0STCNT0|${code}`)) ws.send(frame);
    },
    book(code, asks, bids) {
      if (silent) return;
      const f: string[] = new Array<string>(BOOK_FIELDS).fill('0');
      f[0] = code; f[1] = kstParts(Date.now()).time; f[2] = '0';
      asks.forEach(([p, qty], i) => ((f[3 + i] = String(p)), (f[23 + i] = String(qty))));
      bids.forEach(([p, qty], i) => ((f[13 + i] = String(p)), (f[33 + i] = String(qty))));
      const frame = `0|H0STASP0|001|${f.join('^')}`;
      for (const [ws, regs] of sessions) if (regs.has(`H0STASP0|${code}`)) ws.send(frame);
    },
    sendRaw(text) {
      for (const ws of sessions.keys()) ws.send(text);
    },
    ping,
    silence(on) {
      silent = on;
    },
    dropConnections() {
      for (const ws of sessions.keys()) ws.terminate();
    },
    expireTokens() {
      for (const t of tokens.values()) t.expired = true;
    },
    rateLimitNext(n) {
      rateLimitLeft = n;
    },
    failRest(on) {
      restFailing = on;
    },
    injectRows(rows) {
      injected = rows;
    },
    async close() {
      clearInterval(pinger);
      for (const ws of sessions.keys()) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
