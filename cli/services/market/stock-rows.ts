/**
 * How stocks are shown. `human` (a TTY) formats numbers with units (억/조, separators,
 * signed coloured changes); piped output keeps the raw numbers so scripts can compute.
 */
import type { FinancialRow, PriceBar, StockDetail, StockListItem, StockPrice } from '../../../daemon/contract/stocks.js';
import { formatSignedPercent, formatValue, valueCell } from '../output/number-format.js';
import type { CellInput, RecordData, TableData } from '../output/output.js';

/** Indicators `stocks show` lists, with their units (the rest with --all). */
export const KEY_INDICATORS: readonly (readonly [id: string, unit: string])[] = [
  ['close', 'KRW'], ['change_percent', '%'], ['volume', 'shares'], ['trading_value', 'KRW'], ['market_cap', 'KRW'],
  ['per', 'x'], ['pbr', 'x'], ['roe', '%'], ['operating_margin', '%'], ['dividend_yield', '%'], ['debt_ratio', '%'],
  ['revenue_growth_yoy', '%'], ['return_1m', '%'], ['return_12m', '%'], ['dist_52w_high', '%'], ['rsi_14', 'index'],
  ['piotroski_f_score', 'score'], ['overall_score', 'score'],
];

/** A table cell: formatted (changes toned) for people, raw when piped. */
const cell = (human: boolean, field: string, value: unknown, unit?: string): CellInput =>
  human ? valueCell(field, value, unit) : (value as CellInput);
/** A record value: formatted without colour for people (KeyValue's tones are not the market colours), raw when piped. */
const plain = (human: boolean, value: unknown, unit?: string): CellInput => (human ? formatValue(value, unit) : (value as CellInput));

/** Numeric (right-aligned) columns of stockListTable. */
export const STOCK_LIST_RIGHT = [false, false, false, false, true, true, true, true] as const;
/** Numeric (right-aligned) columns of historyTable. */
export const HISTORY_RIGHT = [false, true, true, true, true, true, true] as const;
/** Numeric (right-aligned) columns of financialsTable. */
export const FINANCIALS_RIGHT = [false, true, true, true, true, true, true, true, true] as const;

/** GET /stocks rows: CODE NAME MARKET SECTOR CLOSE CHANGE_PERCENT MARKET_CAP VOLUME. */
export function stockListTable(items: readonly StockListItem[], human: boolean): TableData {
  return {
    headers: ['CODE', 'NAME', 'MARKET', 'SECTOR', 'CLOSE', 'CHANGE_PERCENT', 'MARKET_CAP', 'VOLUME'],
    rows: items.map((s) => [
      s.code, s.name, s.market, s.sector,
      cell(human, 'close', s.close, 'KRW'), cell(human, 'change_percent', s.change_percent, '%'),
      cell(human, 'market_cap', s.market_cap, 'KRW'), cell(human, 'volume', s.volume, 'shares'),
    ]),
  };
}

function flags(s: StockDetail): string {
  return [s.is_administrative && 'administrative', s.is_spac && 'spac', s.is_preferred && 'preferred'].filter(Boolean).join(', ');
}

/**
 * A stock and its indicators as label/value pairs: the record, then KEY_INDICATORS (or,
 * with `units` from /screen/fields, every indicator the stock has).
 */
export function stockRecord(s: StockDetail, human: boolean, units?: ReadonlyMap<string, string>): RecordData {
  const fields: [string, CellInput][] = [
    ['code', s.code], ['name', s.name], ['name_english', s.name_english], ['market', s.market], ['sector', s.sector],
    ['industry', s.industry], ['board', s.board], ['listing_date', s.listing_date],
    ['shares_outstanding', plain(human, s.shares_outstanding, 'shares')],
    ['settle_month', s.settle_month], ['flags', flags(s)], ['indicators_as_of', s.indicators_as_of],
  ];
  const ids = units ? Object.keys(s.indicators).sort() : KEY_INDICATORS.map(([id]) => id);
  const keyUnits = new Map<string, string>(KEY_INDICATORS.map(([id, unit]) => [id, unit]));
  for (const id of ids) {
    const unit = units?.get(id) ?? keyUnits.get(id);
    const value = s.indicators[id] ?? null;
    fields.push([id, human && id === 'change_percent' && typeof value === 'number' ? formatSignedPercent(value) : plain(human, value, unit)]);
  }
  return { fields };
}

/** The latest price as label/value pairs. */
export function priceRecord(p: StockPrice, human: boolean): RecordData {
  return {
    fields: [
      ['code', p.code], ['name', p.name],
      ['price', plain(human, p.price, 'KRW')],
      ['change', human && p.change !== null ? `${p.change > 0 ? '+' : ''}${formatValue(p.change, 'KRW')}` : p.change],
      ['change_percent', human && p.change_percent !== null ? formatSignedPercent(p.change_percent) : plain(human, p.change_percent, '%')],
      ['open', plain(human, p.open, 'KRW')], ['high', plain(human, p.high, 'KRW')], ['low', plain(human, p.low, 'KRW')],
      ['volume', plain(human, p.volume, 'shares')], ['trading_value', plain(human, p.trading_value, 'KRW')],
      ['as_of', p.as_of], ['source', p.source], ['halted', human ? (p.halted ? 'yes' : 'no') : p.halted],
    ],
  };
}

/** History bars: DATE OPEN HIGH LOW CLOSE VOLUME TRADING_VALUE (oldest first). */
export function historyTable(bars: readonly PriceBar[], human: boolean): TableData {
  return {
    headers: ['DATE', 'OPEN', 'HIGH', 'LOW', 'CLOSE', 'VOLUME', 'TRADING_VALUE'],
    rows: bars.map((b) => [
      b.trade_date,
      cell(human, 'open', b.open_price, 'KRW'), cell(human, 'high', b.high_price, 'KRW'), cell(human, 'low', b.low_price, 'KRW'),
      cell(human, 'close', b.close_price, 'KRW'), cell(human, 'volume', b.volume, 'shares'), cell(human, 'trading_value', b.trading_value, 'KRW'),
    ]),
  };
}

/** Quarterly statements, newest first: PERIOD REVENUE OPERATING_PROFIT NET_PROFIT TOTAL_ASSETS EQUITY and the derived ratios. */
export function financialsTable(rows: readonly FinancialRow[], human: boolean): TableData {
  const amounts = ['revenue', 'operating_profit', 'net_profit', 'total_assets', 'equity'] as const;
  const ratios = ['operating_margin', 'net_margin', 'debt_ratio'] as const;
  return {
    headers: ['PERIOD', ...amounts.map((a) => a.toUpperCase()), ...ratios.map((r) => r.toUpperCase())],
    rows: rows.map((r) => [
      `${r.fiscal_year}Q${r.fiscal_quarter}`,
      ...amounts.map((a) => cell(human, a, r[a], 'KRW')),
      ...ratios.map((k) => cell(human, k, r[k], '%')),
    ]),
  };
}
