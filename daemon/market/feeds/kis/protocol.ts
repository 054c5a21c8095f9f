/**
 * The KIS (한국투자증권) Open API wire formats the feed uses, as the provider's public client
 * code writes them (github.com/koreainvestment/open-trading-api: `examples_llm/kis_auth.py`,
 * `examples_llm/domestic_stock/intstock_multprice/`, `.../ccnl_krx/`, `.../asking_price_krx/`).
 * Pure: building requests and reading answers, no I/O.
 *
 * - Access token: POST /oauth2/tokenP {grant_type:"client_credentials", appkey, appsecret} →
 *   {access_token, token_type:"Bearer", expires_in, access_token_token_expired:"YYYY-MM-DD HH:MM:SS"}.
 *   One issuance a minute per key (EGW00133 otherwise); the token lives a day.
 * - WebSocket approval key: POST /oauth2/Approval {grant_type, appkey, secretkey} → {approval_key}.
 * - Multi-stock price: GET /uapi/domestic-stock/v1/quotations/intstock-multprice, header tr_id
 *   FHKST11300006, query FID_COND_MRKT_DIV_CODE_n / FID_INPUT_ISCD_n for n = 1…30 →
 *   {rt_cd:"0", msg_cd, msg1, output:[{inter_shrn_iscd, inter2_prpr, acml_vol, …}]}, every value a string.
 *   Errors: rt_cd ≠ "0" with msg_cd — EGW00201 (more calls a second than allowed, HTTP 500),
 *   EGW00123 (expired token).
 * - WebSocket: `{header:{approval_key, custtype:"P", tr_type:"1"|"2", "content-type":"utf-8"},
 *   body:{input:{tr_id, tr_key}}}` registers (1) or releases (2) a code; the answer is JSON
 *   `{header:{tr_id, tr_key, encrypt}, body:{rt_cd, msg_cd, msg1, output?}}` (msg1 "SUBSCRIBE SUCCESS",
 *   "UNSUBSCRIBE SUCCESS", or an error such as OPSP0008 "MAX SUBSCRIBE OVER"); data frames are
 *   `0|H0STCNT0|003|<fields>^<fields>…` (encrypted flag, tr_id, record count, `^`-separated
 *   records of a fixed layout); `{header:{tr_id:"PINGPONG", …}}` must be answered.
 */
import { isOnTick } from '../../../kernel/tick-size.js';

/** Paths and transaction ids. */
export const KIS = {
  tokenPath: '/oauth2/tokenP',
  approvalPath: '/oauth2/Approval',
  multiPricePath: '/uapi/domestic-stock/v1/quotations/intstock-multprice',
  multiPriceTrId: 'FHKST11300006',
  /** Codes one multi-price call takes. */
  multiPriceMax: 30,
  /** The WebSocket path the provider's examples connect to. */
  wsPath: '/tryitout',
  trade: 'H0STCNT0',
  book: 'H0STASP0',
  pingpong: 'PINGPONG',
  /** Error codes the feed reacts to. */
  rateLimited: 'EGW00201',
  tokenExpired: 'EGW00123',
  tokenTooSoon: 'EGW00133',
  maxSubscribeOver: 'OPSP0008',
} as const;

/** The field layout of an H0STCNT0 record (46 fields, `ccnl_krx.py`). */
export const TRADE_COLUMNS = [
  'MKSC_SHRN_ISCD', 'STCK_CNTG_HOUR', 'STCK_PRPR', 'PRDY_VRSS_SIGN', 'PRDY_VRSS', 'PRDY_CTRT', 'WGHN_AVRG_STCK_PRC', 'STCK_OPRC',
  'STCK_HGPR', 'STCK_LWPR', 'ASKP1', 'BIDP1', 'CNTG_VOL', 'ACML_VOL', 'ACML_TR_PBMN', 'SELN_CNTG_CSNU', 'SHNU_CNTG_CSNU', 'NTBY_CNTG_CSNU',
  'CTTR', 'SELN_CNTG_SMTN', 'SHNU_CNTG_SMTN', 'CCLD_DVSN', 'SHNU_RATE', 'PRDY_VOL_VRSS_ACML_VOL_RATE', 'OPRC_HOUR', 'OPRC_VRSS_PRPR_SIGN',
  'OPRC_VRSS_PRPR', 'HGPR_HOUR', 'HGPR_VRSS_PRPR_SIGN', 'HGPR_VRSS_PRPR', 'LWPR_HOUR', 'LWPR_VRSS_PRPR_SIGN', 'LWPR_VRSS_PRPR', 'BSOP_DATE',
  'NEW_MKOP_CLS_CODE', 'TRHT_YN', 'ASKP_RSQN1', 'BIDP_RSQN1', 'TOTAL_ASKP_RSQN', 'TOTAL_BIDP_RSQN', 'VOL_TNRT', 'PRDY_SMNS_HOUR_ACML_VOL',
  'PRDY_SMNS_HOUR_ACML_VOL_RATE', 'HOUR_CLS_CODE', 'MRKT_TRTM_CLS_CODE', 'VI_STND_PRC',
] as const;

/** The field layout of an H0STASP0 record (59 fields, `asking_price_krx.py`): code, time, hour class, 10 asks, 10 bids, their sizes, … */
export const BOOK_FIELD_COUNT = 59;

/** A quote read from the provider, checked for shape (not yet against the market rules). */
export interface KisQuote {
  code: string;
  price: number;
  /** The day's cumulative volume. */
  volume: number;
  /** The day's cumulative traded value (KRW), when given. */
  tradingValue: number | null;
  open: number | null;
  high: number | null;
  low: number | null;
  /** ms epoch of the trade when the frame says it; null for a sweep row (stamped on receipt). */
  ts: number | null;
}

/** An order book read from an H0STASP0 record. */
export interface KisBook {
  code: string;
  bids: { price: number; quantity: number }[];
  asks: { price: number; quantity: number }[];
}

/** Why a record was not taken (counted in /metrics as `reason`). */
export type KisRejectReason = 'bad_layout' | 'zero_price' | 'bad_number' | 'unknown_code' | 'off_grid' | 'outside_limit' | 'volume_back' | 'undecryptable';

/** The query string of one multi-price call (1–30 codes). */
export function multiPriceQuery(codes: readonly string[]): URLSearchParams {
  const q = new URLSearchParams();
  codes.forEach((code, i) => {
    q.set(`FID_COND_MRKT_DIV_CODE_${i + 1}`, 'J');
    q.set(`FID_INPUT_ISCD_${i + 1}`, code);
  });
  return q;
}

const CODE = /^[0-9A-Z]{6}$/;

/** A whole non-negative number from the provider's string, or null when it is not one. */
function num(v: unknown): number | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const s = String(v).trim();
  if (!/^-?\d+(\.\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}
const positive = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && n > 0 ? n : null;
};

/** Read one row of a multi-price answer; a reason when it cannot be a quote. */
export function parseMultiPriceRow(row: unknown): KisQuote | KisRejectReason {
  if (!row || typeof row !== 'object') return 'bad_layout';
  const r = row as Record<string, unknown>;
  const code = typeof r.inter_shrn_iscd === 'string' ? r.inter_shrn_iscd.trim() : '';
  if (!CODE.test(code)) return 'bad_layout';
  const price = num(r.inter2_prpr);
  const volume = num(r.acml_vol);
  if (price === null || volume === null || volume < 0) return 'bad_number';
  if (price <= 0) return 'zero_price';
  return {
    code, price, volume, tradingValue: num(r.acml_tr_pbmn),
    open: positive(r.inter2_oprc), high: positive(r.inter2_hgpr), low: positive(r.inter2_lwpr), ts: null,
  };
}

/** ms epoch of a KST business date 'YYYYMMDD' and time 'HHMMSS', or null. */
export function kstInstant(date: string, time: string): number | null {
  if (!/^\d{8}$/.test(date) || !/^\d{6}$/.test(time)) return null;
  const ms = Date.parse(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}+09:00`);
  return Number.isFinite(ms) ? ms : null;
}

/** A data frame split into its parts, or null when it is not one. */
export function splitFrame(raw: string): { encrypted: boolean; trId: string; count: number; body: string } | null {
  if (raw[0] !== '0' && raw[0] !== '1') return null;
  const parts = raw.split('|');
  if (parts.length < 4) return null;
  const count = Number(parts[2]);
  if (!Number.isInteger(count) || count < 1) return null;
  return { encrypted: parts[0] === '1', trId: parts[1]!, count, body: parts.slice(3).join('|') };
}

/** The records of an H0STCNT0 frame body: quotes, or a reason per bad record. */
export function parseTradeRecords(body: string, count: number): (KisQuote | KisRejectReason)[] {
  const fields = body.split('^');
  const width = TRADE_COLUMNS.length;
  if (fields.length !== count * width) return ['bad_layout'];
  const out: (KisQuote | KisRejectReason)[] = [];
  for (let i = 0; i < count; i++) {
    const f = fields.slice(i * width, (i + 1) * width);
    const code = f[0]!;
    if (!CODE.test(code)) {
      out.push('bad_layout');
      continue;
    }
    const price = num(f[2]);
    const volume = num(f[13]);
    if (price === null || volume === null || volume < 0) {
      out.push('bad_number');
      continue;
    }
    if (price <= 0) {
      out.push('zero_price');
      continue;
    }
    out.push({
      code, price, volume, tradingValue: num(f[14]), open: positive(f[7]), high: positive(f[8]), low: positive(f[9]),
      ts: kstInstant(f[33] ?? '', f[1] ?? ''),
    });
  }
  return out;
}

/** The book of an H0STASP0 frame body (the last record), or a reason. */
export function parseBookRecord(body: string, count: number): KisBook | KisRejectReason {
  const fields = body.split('^');
  if (fields.length !== count * BOOK_FIELD_COUNT) return 'bad_layout';
  const f = fields.slice((count - 1) * BOOK_FIELD_COUNT);
  const code = f[0]!;
  if (!CODE.test(code)) return 'bad_layout';
  const side = (priceAt: number, qtyAt: number) => {
    const levels: { price: number; quantity: number }[] = [];
    for (let i = 0; i < 10; i++) {
      const price = num(f[priceAt + i]);
      const quantity = num(f[qtyAt + i]);
      if (price === null || quantity === null) return null;
      // Empty levels are zeros in the frame: the book ends there.
      if (price <= 0) break;
      levels.push({ price, quantity: Math.max(0, Math.trunc(quantity)) });
    }
    return levels;
  };
  const asks = side(3, 23);
  const bids = side(13, 33);
  if (!asks || !bids) return 'bad_number';
  if ([...asks, ...bids].some((l) => !isOnTick(l.price))) return 'off_grid';
  return { code, asks, bids };
}

/** A JSON control message of the socket (acknowledgement, PINGPONG). */
export interface KisSystemMessage {
  trId: string;
  trKey: string | null;
  ok: boolean;
  msgCode: string | null;
  message: string | null;
  pingpong: boolean;
}

/** Read a JSON control message; null when it is not one. */
export function parseSystemMessage(raw: string): KisSystemMessage | null {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return null;
  }
  const header = (msg as { header?: Record<string, unknown> } | null)?.header;
  if (!header || typeof header.tr_id !== 'string') return null;
  const body = (msg as { body?: Record<string, unknown> }).body;
  return {
    trId: header.tr_id,
    trKey: typeof header.tr_key === 'string' ? header.tr_key : null,
    ok: body?.rt_cd === '0',
    msgCode: typeof body?.msg_cd === 'string' ? body.msg_cd : null,
    message: typeof body?.msg1 === 'string' ? body.msg1 : null,
    pingpong: header.tr_id === KIS.pingpong,
  };
}

/** The register (tr_type 1) or release (2) request of one code on one real-time feed. */
export function registrationMessage(approvalKey: string, trId: string, code: string, register: boolean): string {
  return JSON.stringify({
    header: { approval_key: approvalKey, custtype: 'P', tr_type: register ? '1' : '2', 'content-type': 'utf-8' },
    body: { input: { tr_id: trId, tr_key: code } },
  });
}

/** The provider's error code and message in an error answer (REST: msg_cd/msg1; OAuth: error_code/error_description). */
export function errorOf(body: unknown): { code: string | null; message: string | null } {
  const b = (body ?? {}) as Record<string, unknown>;
  const code = typeof b.msg_cd === 'string' ? b.msg_cd : typeof b.error_code === 'string' ? b.error_code : null;
  const message = typeof b.msg1 === 'string' ? b.msg1 : typeof b.error_description === 'string' ? b.error_description : null;
  return { code, message };
}
