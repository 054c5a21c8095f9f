/**
 * How the portfolio is shown: raw TSV rows for pipes, and market cells (P&L coloured by
 * sign: red gain, blue loss) for the terminal views. Pure.
 */
import { shortId } from './id-prefix.js';
import { moveCell, num, pct, type MarketCell, type MarketTableData } from './market-format.js';
import type { CellInput, RecordData } from './output.js';
import type { Performance, PortfolioOverview, ValuedHolding } from './portfolio.js';

/** Column order of piped holding rows. */
export const HOLDING_COLUMNS = [
  'id', 'code', 'name', 'quantity', 'average_price', 'current_price', 'market_value', 'cost', 'unrealized_pnl', 'unrealized_pnl_percent', 'day_change_percent', 'weight',
] as const;

/** One holding as raw values in HOLDING_COLUMNS order. */
export function holdingTsv(h: ValuedHolding): CellInput[] {
  return HOLDING_COLUMNS.map((c) => h[c]);
}

/** Holdings for the terminal, with a totals row. */
export function holdingsView(p: PortfolioOverview): MarketTableData {
  const rows: MarketCell[][] = p.holdings.map((h) => [
    { text: shortId(h.id), muted: true }, { text: h.code }, { text: h.name ?? '' }, { text: num(h.quantity) }, { text: num(h.average_price) },
    { text: num(h.current_price) + (h.price_source === 'close' ? ' (close)' : '') }, { text: num(h.market_value, 0) },
    moveCell(h.unrealized_pnl, (n) => signedWon(n)), moveCell(h.unrealized_pnl_percent, pct), moveCell(h.day_change_percent, pct), { text: `${h.weight.toFixed(1)}%` },
  ]);
  const t = p.totals;
  rows.push([
    { text: 'TOTAL' }, { text: '' }, { text: `${t.holdings} holding(s)` }, { text: '' }, { text: '' }, { text: '' }, { text: num(t.market_value, 0) },
    moveCell(t.unrealized_pnl, (n) => signedWon(n)), moveCell(t.unrealized_pnl_percent, pct), moveCell(t.day_change_percent, pct), { text: '' },
  ]);
  return {
    headers: ['ID', 'CODE', 'NAME', 'QTY', 'AVG PRICE', 'PRICE', 'VALUE', 'P&L', 'P&L %', 'DAY %', 'WEIGHT'],
    rows,
    right: [false, false, false, true, true, true, true, true, true, true, true],
  };
}

function signedWon(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  return `${n > 0 ? '+' : ''}${num(n, 0)}`;
}

const RETURN_KEYS = ['1W', '1M', '3M', '6M', 'YTD', '1Y'] as const;

/** Scalar figures of the performance report, in the piped `perf` column order. */
const PERFORMANCE_FIGURES = [
  'total_value', 'total_cost', 'unrealized_pnl', 'unrealized_pnl_percent', 'realized_pnl', 'total_return_percent', 'day_change', 'day_change_percent',
  'volatility_percent', 'max_drawdown_percent', 'sharpe_ratio', 'beta', 'benchmark_return_percent', 'excess_return_percent',
] as const;

/** Column names of the piped `perf` row. */
export const PERFORMANCE_COLUMNS: readonly string[] = [...PERFORMANCE_FIGURES.slice(0, 8), ...RETURN_KEYS.map((k) => `return_${k}`), ...PERFORMANCE_FIGURES.slice(8)];

/** The piped `perf` row as label/value pairs (raw numbers, PERFORMANCE_COLUMNS order). */
export function performanceRecord(p: Performance): RecordData {
  const figure = (k: (typeof PERFORMANCE_FIGURES)[number]): [string, CellInput] => [k, p[k]];
  return {
    fields: [
      ...PERFORMANCE_FIGURES.slice(0, 8).map(figure),
      ...RETURN_KEYS.map((k) => [`return_${k}`, p.returns[k]] as [string, CellInput]),
      ...PERFORMANCE_FIGURES.slice(8).map(figure),
    ],
  };
}

/** Headline figures of `perf` on the terminal as label/cell pairs. */
export function performanceSummary(p: Performance): [string, MarketCell][] {
  const fixed = (n: number | null, digits = 2) => ({ text: n === null ? '–' : n.toFixed(digits) });
  return [
    ['value', { text: `${num(p.total_value, 0)} KRW` }],
    ['cost', { text: `${num(p.total_cost, 0)} KRW` }],
    ['unrealised P&L', { text: `${signedWon(p.unrealized_pnl)} (${pct(p.unrealized_pnl_percent)})`, move: moveCell(p.unrealized_pnl).move }],
    ['realised P&L', moveCell(p.realized_pnl, signedWon)],
    ['total return', moveCell(p.total_return_percent, pct)],
    ['today', { text: `${signedWon(p.day_change)} (${pct(p.day_change_percent)})`, move: moveCell(p.day_change).move }],
    ['volatility (ann.)', { text: p.volatility_percent === null ? '–' : `${p.volatility_percent.toFixed(2)}%` }],
    // A positive magnitude (peak-to-trough fall), so it is coloured as a fall.
    ['max drawdown', { text: `${p.max_drawdown_percent.toFixed(2)}%`, move: p.max_drawdown_percent > 0 ? 'down' : 'flat' }],
    ['Sharpe ratio', fixed(p.sharpe_ratio)],
    [`beta vs ${p.benchmark}`, fixed(p.beta)],
    [`${p.benchmark} return`, p.benchmark_return_percent === null ? { text: '–' } : moveCell(p.benchmark_return_percent, pct)],
    ['excess return', p.excess_return_percent === null ? { text: '–' } : moveCell(p.excess_return_percent, pct)],
  ];
}

/** The period returns as one table row. */
export function returnsView(p: Performance): MarketTableData {
  return { headers: [...RETURN_KEYS], rows: [RETURN_KEYS.map((k) => moveCell(p.returns[k], pct))], right: RETURN_KEYS.map(() => true) };
}

/** Allocation by sector and the best and worst holdings. */
export function allocationView(p: Performance, top = 5): MarketTableData {
  const slices = p.allocation.by_sector.slice(0, top);
  return {
    headers: ['SECTOR', 'WEIGHT', 'VALUE'],
    rows: slices.map((s) => [{ text: s.key }, { text: `${s.weight.toFixed(1)}%` }, { text: num(s.value, 0) }]),
    right: [false, true, true],
  };
}
