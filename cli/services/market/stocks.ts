/** Stock endpoints: list, detail with indicators, price, history and financials. */
import { STOCK_SORT_FIELDS, type FinancialRow, type PriceBar, type PriceHistoryQuery, type StockDetail, type StockListItem, type StockPrice } from '../../../daemon/contract/stocks.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { usageError } from '../session/errors.js';
import { parseMarket } from '../screening/screen-flags.js';
import type { Session } from '../session/session.js';

/** What `stocks list` asks GET /stocks for (the flags as given: `sort` may carry its direction). */
export interface StockListOptions {
  market?: string;
  sector?: string;
  q?: string;
  /** `field` or `field:asc|desc`. */
  sort?: string;
  limit?: number;
  page?: number;
}

/**
 * A stock code, upper-cased.
 * @throws CliError USAGE unless it is 6 digits or upper-case letters (KRX codes)
 */
export function checkCode(code: string): string {
  const upper = code.trim().toUpperCase();
  if (!/^[0-9A-Z]{6}$/.test(upper)) throw usageError(`"${code}" is not a stock code`, 'KRX codes have 6 characters, e.g. 005930 (find one with `stockscreen stocks list --q 삼성`)');
  return upper;
}

/**
 * `--sort market_cap:asc` → sort and order parameters.
 * @throws CliError USAGE for an unknown field or direction
 */
export function stockSort(text: string): { sort: string; order?: string } {
  const [field = '', order, extra] = text.trim().toLowerCase().split(':');
  if (!(STOCK_SORT_FIELDS as readonly string[]).includes(field)) throw usageError(`--sort: "${field}" is not sortable here`, `one of ${STOCK_SORT_FIELDS.join(', ')}, optionally with :asc or :desc`);
  if (extra !== undefined || (order !== undefined && order !== 'asc' && order !== 'desc')) throw usageError(`--sort "${text}": the direction must be asc or desc`);
  return order ? { sort: field, order } : { sort: field };
}

/** GET /stocks. @throws CliError USAGE for a bad --sort or --market; INVALID_REQUEST from the server */
export async function listStocks(session: Session, query: StockListOptions): Promise<ApiResponse<StockListItem[]>> {
  const sort = query.sort ? stockSort(query.sort) : {};
  return session.api.request<StockListItem[]>({
    path: `${API_PREFIX}/stocks`,
    query: { market: query.market === undefined ? undefined : parseMarket(query.market), sector: query.sector, q: query.q, limit: query.limit, page: query.page, ...sort },
  });
}

/** GET /stocks/{code}. @throws CliError NOT_FOUND for an unknown code */
export async function getStock(session: Session, code: string): Promise<ApiResponse<StockDetail>> {
  return session.api.request<StockDetail>({ path: `${API_PREFIX}/stocks/${checkCode(code)}` });
}

/** GET /stocks/{code}/price. @throws CliError NOT_FOUND for an unknown code or no price data */
export async function getPrice(session: Session, code: string): Promise<ApiResponse<StockPrice>> {
  return session.api.request<StockPrice>({ path: `${API_PREFIX}/stocks/${checkCode(code)}/price` });
}

/** Query of GET /stocks/{code}/history (each field optional: the daemon fills in the defaults). */
export type HistoryQuery = Partial<PriceHistoryQuery>;

/** GET /stocks/{code}/history (oldest first). @throws CliError USAGE for a malformed date */
export async function getHistory(session: Session, code: string, query: HistoryQuery): Promise<ApiResponse<PriceBar[]>> {
  for (const [flag, value] of [['--from', query.from], ['--to', query.to]] as const) {
    if (value !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw usageError(`${flag}: "${value}" is not YYYY-MM-DD`);
  }
  return session.api.request<PriceBar[]>({ path: `${API_PREFIX}/stocks/${checkCode(code)}/history`, query: { ...query } });
}

/** GET /stocks/{code}/financials (newest first). */
export async function getFinancials(session: Session, code: string, limit?: number): Promise<ApiResponse<FinancialRow[]>> {
  return session.api.request<FinancialRow[]>({ path: `${API_PREFIX}/stocks/${checkCode(code)}/financials`, query: { limit } });
}
