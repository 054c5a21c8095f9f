/**
 * How the portfolio is shown: raw TSV rows for pipes, and market cells (P&L coloured by
 * sign: red gain, blue loss) for the terminal views. Pure.
 */
import type { Performance, PortfolioOverview, UnavailableFigure, ValuedHolding } from '../../../daemon/contract/portfolio.js';
import { shortId } from '../output/id-prefix.js';
import { moveCell, num, pct, type MarketCell, type MarketTableData } from '../output/market-format.js';
import type { CellInput, RecordData } from '../output/output.js';

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

/** The mark of a figure the history cannot define (never a misleading 0.00). */
export const UNDEFINED_MARK = '—';

/** A figure, or "—" with the daemon's reason when it is null. */
function figure(p: Performance, key: UnavailableFigure, value: number | null, show: (n: number) => MarketCell): MarketCell {
  if (value !== null) return show(value);
  const why = p.unavailable[key];
  return { text: why ? `${UNDEFINED_MARK} ${why}` : UNDEFINED_MARK, muted: true };
}

/** Headline figures of `perf` on the terminal as label/cell pairs. */
export function performanceSummary(p: Performance): [string, MarketCell][] {
  const fixed = (n: number) => ({ text: n.toFixed(2) });
  return [
    ['value', { text: `${num(p.total_value, 0)} KRW` }],
    ['cost', { text: `${num(p.total_cost, 0)} KRW` }],
    ['unrealised P&L', { text: `${signedWon(p.unrealized_pnl)} (${pct(p.unrealized_pnl_percent)})`, move: moveCell(p.unrealized_pnl).move }],
    ['realised P&L', moveCell(p.realized_pnl, signedWon)],
    ['total return', moveCell(p.total_return_percent, pct)],
    ['today', { text: `${signedWon(p.day_change)} (${pct(p.day_change_percent)})`, move: moveCell(p.day_change).move }],
    ['volatility (ann.)', figure(p, 'volatility_percent', p.volatility_percent, (n) => ({ text: `${n.toFixed(2)}%` }))],
    // A positive magnitude (peak-to-trough fall), so it is coloured as a fall.
    ['max drawdown', figure(p, 'max_drawdown_percent', p.max_drawdown_percent, (n) => ({ text: `${n.toFixed(2)}%`, move: n > 0 ? 'down' : 'flat' }))],
    ['Sharpe ratio', figure(p, 'sharpe_ratio', p.sharpe_ratio, fixed)],
    [`beta vs ${p.benchmark}`, figure(p, 'beta', p.beta, fixed)],
    [`${p.benchmark} return`, figure(p, 'benchmark_return_percent', p.benchmark_return_percent, (n) => moveCell(n, pct))],
    ['excess return', figure(p, 'excess_return_percent', p.excess_return_percent, (n) => moveCell(n, pct))],
  ];
}

/** The period returns as one table row ("—" where the history cannot define them; the reason is `returnsNote`). */
export function returnsView(p: Performance): MarketTableData {
  const cell = (n: number | null): MarketCell => (n === null ? { text: UNDEFINED_MARK, muted: true } : moveCell(n, pct));
  return { headers: [...RETURN_KEYS], rows: [RETURN_KEYS.map((k) => cell(p.returns[k]))], right: RETURN_KEYS.map(() => true) };
}

/** Why the period returns are unavailable, when they are. */
export function returnsNote(p: Performance): string | null {
  return RETURN_KEYS.some((k) => p.returns[k] === null) ? `returns: ${p.unavailable?.returns ?? 'not enough history'}` : null;
}

/** The best and worst holdings side by side, one rank per row (never on the sector rows). */
export function rankedView(p: Performance, top = 3): MarketTableData {
  const pnl = (n: number | undefined): MarketCell => (n === undefined ? { text: '' } : moveCell(n, pct));
  const label = (h: Performance['best'][number] | undefined) => ({ text: h ? `${h.code} ${h.name ?? ''}`.trim() : '' });
  const n = Math.min(top, Math.max(p.best.length, p.worst.length));
  return {
    headers: ['#', 'BEST', 'P&L %', 'WORST', 'P&L %'],
    rows: Array.from({ length: n }, (_, i) => [{ text: String(i + 1) }, label(p.best[i]), pnl(p.best[i]?.unrealized_pnl_percent), label(p.worst[i]), pnl(p.worst[i]?.unrealized_pnl_percent)]),
    right: [true, false, true, false, true],
  };
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
