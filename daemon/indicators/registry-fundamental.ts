/**
 * Registry entries computed from quarterly financial statements (TTM = sum of
 * the last four consecutive quarters of a flow item) and cross-sectional scores.
 */
import { indicatorGroup } from './registry-types.js';

const PF = ['prices', 'financials'] as const;
const valuation = indicatorGroup('valuation', PF);
const profit = indicatorGroup('profitability', ['financials']);
const growth = indicatorGroup('growth', ['financials']);
const score = indicatorGroup('score', ['financials']);
const CROSS = ['prices', 'financials', 'index', 'cross_section'] as const;

/** Valuation indicators. */
export const VALUATION_INDICATORS = [
  valuation('per', '주가수익비율(PER)', 'Price / earnings', 'x', 1, 'market_cap / TTM net profit; null when TTM net profit ≤ 0.'),
  valuation('pbr', '주가순자산비율(PBR)', 'Price / book', 'x', 1, 'market_cap / latest equity; null when equity ≤ 0.'),
  valuation('psr', '주가매출비율(PSR)', 'Price / sales', 'x', 1, 'market_cap / TTM revenue; null when TTM revenue ≤ 0.'),
  valuation('por', '주가영업이익비율(POR)', 'Price / operating profit', 'x', 1, 'market_cap / TTM operating profit; null when ≤ 0.'),
  valuation('earnings_yield', '이익수익률', 'Earnings yield', '%', 1, 'TTM net profit / market_cap × 100 (negative for a loss).'),
  valuation('eps', '주당순이익(EPS)', 'Earnings per share', 'KRW', 0, 'TTM net profit / shares outstanding.', ['financials']),
  valuation('bps', '주당순자산(BPS)', 'Book value per share', 'KRW', 0, 'Latest equity / shares outstanding.', ['financials']),
  valuation('graham_ratio', '그레이엄 비율', 'Graham ratio', 'x', 1, 'close / √(22.5 × eps × bps); null when eps or bps ≤ 0 (< 1: below the Graham number).'),
  valuation('peg', '주가이익증가비율(PEG)', 'PEG ratio', 'x', 1, 'per / net_profit_growth_yoy; null when growth ≤ 0 or per is null.'),
  valuation('dividend_yield', '배당수익률', 'Dividend yield', '%', 1, 'TTM dividends per share / close × 100 (quarters without a reported dividend count as 0; null when none of the four report one).'),
  valuation('enterprise_value', '기업가치(EV)', 'Enterprise value', 'KRW', 1, 'market_cap + long-term debt − cash of the latest quarter (a missing debt or cash figure counts as 0); null without statements.'),
  valuation('ev_ebit', 'EV/EBIT', 'EV / EBIT', 'x', 1, 'enterprise_value / TTM operating profit; null when either is ≤ 0.'),
] as const;

/** Profitability and balance-sheet indicators. */
export const PROFITABILITY_INDICATORS = [
  profit('roe', '자기자본이익률(ROE)', 'Return on equity', '%', 0, 'TTM net profit / mean of latest and year-ago equity × 100 (latest alone when the year-ago quarter is missing); null when that equity ≤ 0.'),
  profit('roa', '총자산이익률(ROA)', 'Return on assets', '%', 0, 'TTM net profit / mean of latest and year-ago total assets × 100 (latest alone when the year-ago quarter is missing).'),
  profit('operating_margin', '영업이익률', 'Operating margin', '%', 0, 'TTM operating profit / TTM revenue × 100; null when revenue ≤ 0.'),
  profit('net_margin', '순이익률', 'Net margin', '%', 0, 'TTM net profit / TTM revenue × 100; null when revenue ≤ 0.'),
  profit('gross_margin', '매출총이익률', 'Gross margin', '%', 0, 'TTM gross profit / TTM revenue × 100; null when revenue ≤ 0.'),
  profit('asset_turnover', '총자산회전율', 'Asset turnover', 'ratio', 0, 'TTM revenue / mean of latest and year-ago total assets.'),
  profit('debt_ratio', '부채비율', 'Debt ratio', '%', 0, 'Total liabilities (else total assets − equity) / equity × 100; null when equity ≤ 0.'),
  profit('equity_ratio', '자기자본비율', 'Equity ratio', '%', 0, 'Equity / total assets × 100; null when total assets ≤ 0.'),
  profit('current_ratio', '유동비율', 'Current ratio', '%', 0, 'Current assets / current liabilities × 100; null when current liabilities ≤ 0.'),
  profit('return_on_capital', '자본이익률(ROC)', 'Return on capital', '%', 0, 'TTM operating profit / capital employed × 100; capital = total assets − current liabilities (equity + long-term debt when current liabilities are unknown); null when capital ≤ 0.'),
] as const;

/** Growth indicators. */
export const GROWTH_INDICATORS = [
  growth('revenue_growth_yoy', '매출액 증가율(YoY)', 'Revenue growth YoY', '%', 0, 'TTM revenue vs the TTM a year earlier (8 consecutive quarters); null when the base ≤ 0.'),
  growth('operating_profit_growth_yoy', '영업이익 증가율(YoY)', 'Operating profit growth YoY', '%', 0, 'TTM operating profit vs the TTM a year earlier; null when the base ≤ 0.'),
  growth('net_profit_growth_yoy', '순이익 증가율(YoY)', 'Net profit growth YoY', '%', 0, 'TTM net profit vs the TTM a year earlier; null when the base ≤ 0.'),
  growth('revenue_growth_qoq', '매출액 증가율(QoQ)', 'Revenue growth QoQ', '%', 0, 'Latest quarter revenue vs the previous quarter; null when the base ≤ 0.'),
  growth('turnaround', '흑자전환', 'Turnaround', 'flag', 0, '1 when the latest quarter operating profit > 0 and the same quarter a year earlier was < 0; null without both quarters.'),
] as const;

/** Scores and ranks. */
export const SCORE_INDICATORS = [
  score('piotroski_f_score', '피오트로스키 F-스코어', 'Piotroski F-score', 'score', 0, 'Sum of 9 pass/fail tests on TTM vs year-ago TTM (ROA > 0, CFO > 0, ΔROA > 0, CFO > net profit, leverage down, current ratio up, no new shares, gross margin up, asset turnover up); a test whose inputs are missing counts as failed; null without TTM net profit and total assets.'),
  score('altman_z', '알트만 Z-스코어', "Altman Z''-score", 'score', 0, "Z'' (non-manufacturers/emerging markets) = 6.56·WC/TA + 3.26·RE/TA + 6.72·EBIT/TA + 1.05·equity/liabilities; < 1.1 distress, > 2.6 safe; null when any input is missing."),
  score('value_score', '가치 점수', 'Value score', 'score', 1, 'Percentile (0–100, the scale of pct_rank: 100 × average ascending rank / n, the lowest 100 / n) of the mean percentile of earnings_yield, 1/pbr, 1/psr and dividend_yield; needs at least 2 of them.', CROSS),
  score('quality_score', '퀄리티 점수', 'Quality score', 'score', 0, 'Percentile (0–100, the scale of pct_rank: 100 × average ascending rank / n, the lowest 100 / n) of the mean percentile of roe, roa, operating_margin, piotroski_f_score and low debt_ratio; needs at least 3 of them.', CROSS),
  score('growth_score', '성장 점수', 'Growth score', 'score', 0, 'Percentile (0–100, the scale of pct_rank: 100 × average ascending rank / n, the lowest 100 / n) of the mean percentile of revenue, operating profit and net profit YoY growth and revenue QoQ growth; needs at least 2 of them.', CROSS),
  score('momentum_score', '모멘텀 점수', 'Momentum score', 'score', 127, 'Percentile (0–100, the scale of pct_rank: 100 × average ascending rank / n, the lowest 100 / n) of the mean percentile of return_3m, return_6m, momentum_12_1 and dist_52w_high; needs at least 2 of them.', CROSS),
  score('overall_score', '종합 점수', 'Overall score', 'score', 0, 'Rounded mean of the available value, quality, growth and momentum scores (integer 0–100); needs at least 2 of them.', CROSS),
  score('magic_formula_rank', '마법공식 순위', 'Magic formula rank', 'rank', 1, 'Greenblatt: rank of earnings yield (EBIT/EV) + rank of return_on_capital, ranked again (1 = best), among stocks with both and positive EBIT.', CROSS),
] as const;
