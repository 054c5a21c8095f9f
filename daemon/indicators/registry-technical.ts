/**
 * Registry entries computed from daily prices (and the market index):
 * price & liquidity, returns, trend, oscillators, volatility, volume, events.
 */
import { indicatorGroup } from './registry-types.js';

const price = indicatorGroup('price', ['prices']);
const returns = indicatorGroup('returns', ['prices']);
const trend = indicatorGroup('trend', ['prices']);
const osc = indicatorGroup('oscillator', ['prices']);
const vol = indicatorGroup('volatility', ['prices']);
const volume = indicatorGroup('volume', ['prices']);
const event = indicatorGroup('event', ['prices']);

/** Price and liquidity indicators. */
export const PRICE_INDICATORS = [
  price('close', '종가', 'Close', 'KRW', 1, 'Latest close; for a stock halted today, its last close.'),
  price('open', '시가', 'Open', 'KRW', 1, 'Open of the latest bar; null for a stock halted today.'),
  price('high', '고가', 'High', 'KRW', 1, 'High of the latest bar; null for a stock halted today.'),
  price('low', '저가', 'Low', 'KRW', 1, 'Low of the latest bar; null for a stock halted today.'),
  price('change', '전일 대비', 'Change', 'KRW', 2, 'Close minus the previous close (0 for a stock halted today).'),
  price('change_percent', '등락률', 'Change %', '%', 2, 'Change / previous close × 100.'),
  price('volume', '거래량', 'Volume', 'shares', 1, 'Shares traded on the latest bar (0 for a stock halted today).'),
  price('trading_value', '거래대금', 'Trading value', 'KRW', 1, 'Value traded on the latest bar (0 for a stock halted today).'),
  price('avg_volume_20', '20일 평균 거래량', '20-day average volume', 'shares', 20, 'Mean volume of the last 20 bars.'),
  price('avg_trading_value_20', '20일 평균 거래대금', '20-day average trading value', 'KRW', 20, 'Mean trading value of the last 20 bars.'),
  price('relative_volume', '거래량 비율', 'Relative volume', 'x', 21, 'Volume / mean volume of the 20 bars before today.'),
  price('market_cap', '시가총액', 'Market cap', 'KRW', 1, "Latest bar's reported market cap, else close × shares outstanding."),
  price('shares_outstanding', '상장주식수', 'Shares outstanding', 'shares', 0, 'Listed shares (listing, else latest bar, else latest filing); null when ≤ 0.', []),
  price('turnover', '거래회전율', 'Turnover', '%', 1, 'Volume / shares outstanding × 100.'),
] as const;

/** Return and momentum indicators. */
export const RETURN_INDICATORS = [
  returns('return_1w', '1주 수익률', '1-week return', '%', 6, 'Close vs the close 5 trading days earlier.'),
  returns('return_1m', '1개월 수익률', '1-month return', '%', 22, 'Close vs the close 21 trading days earlier.'),
  returns('return_3m', '3개월 수익률', '3-month return', '%', 64, 'Close vs the close 63 trading days earlier.'),
  returns('return_6m', '6개월 수익률', '6-month return', '%', 127, 'Close vs the close 126 trading days earlier.'),
  returns('return_12m', '12개월 수익률', '12-month return', '%', 253, 'Close vs the close 252 trading days earlier.'),
  returns('return_ytd', '연초 대비 수익률', 'Year-to-date return', '%', 2, 'Close vs the last close of the previous calendar year.'),
  returns('momentum_12_1', '12-1 모멘텀', '12-1 momentum', '%', 253, 'Return from the close 252 trading days ago to the close 21 trading days ago.'),
  returns('high_52w', '52주 최고가', '52-week high', 'KRW', 252, 'Highest high of the last 252 bars.'),
  returns('low_52w', '52주 최저가', '52-week low', 'KRW', 252, 'Lowest low of the last 252 bars.'),
  returns('dist_52w_high', '52주 최고가 대비', 'Distance from 52-week high', '%', 252, '(close / high_52w − 1) × 100, ≤ 0.'),
  returns('dist_52w_low', '52주 최저가 대비', 'Distance from 52-week low', '%', 252, '(close / low_52w − 1) × 100, ≥ 0.'),
  returns('rs_3m', '3개월 상대강도', '3-month relative strength', '%', 64, 'return_3m minus the market index return between the same dates (pp).', ['prices', 'index']),
  returns('rs_12m', '12개월 상대강도', '12-month relative strength', '%', 253, 'return_12m minus the market index return between the same dates (pp).', ['prices', 'index']),
] as const;

/** Trend indicators. */
export const TREND_INDICATORS = [
  trend('sma_5', '5일 이동평균', '5-day SMA', 'KRW', 5, 'Simple mean of the last 5 closes.'),
  trend('sma_20', '20일 이동평균', '20-day SMA', 'KRW', 20, 'Simple mean of the last 20 closes.'),
  trend('sma_60', '60일 이동평균', '60-day SMA', 'KRW', 60, 'Simple mean of the last 60 closes.'),
  trend('sma_120', '120일 이동평균', '120-day SMA', 'KRW', 120, 'Simple mean of the last 120 closes.'),
  trend('sma_200', '200일 이동평균', '200-day SMA', 'KRW', 200, 'Simple mean of the last 200 closes.'),
  trend('ema_12', '12일 지수이동평균', '12-day EMA', 'KRW', 12, 'EMA of closes, α = 2/13, seeded with the first 12-day SMA.'),
  trend('ema_26', '26일 지수이동평균', '26-day EMA', 'KRW', 26, 'EMA of closes, α = 2/27, seeded with the first 26-day SMA.'),
  trend('dist_sma_20', '20일선 이격률', 'Distance from 20-day SMA', '%', 20, '(close / sma_20 − 1) × 100.'),
  trend('dist_sma_60', '60일선 이격률', 'Distance from 60-day SMA', '%', 60, '(close / sma_60 − 1) × 100.'),
  trend('dist_sma_200', '200일선 이격률', 'Distance from 200-day SMA', '%', 200, '(close / sma_200 − 1) × 100.'),
  trend('disparity_20', '20일 이격도', '20-day disparity', 'index', 20, 'close / sma_20 × 100.'),
  trend('ma_alignment', '이동평균 배열', 'Moving-average alignment', 'score', 120, '1 when sma_5 > sma_20 > sma_60 > sma_120 (정배열), −1 when strictly reversed (역배열), else 0.'),
  trend('golden_cross_20_60', '골든크로스(20/60)', 'Golden cross 20/60', 'flag', 65, '1 when sma_20 crossed above sma_60 within the last 5 trading days.'),
  trend('dead_cross_20_60', '데드크로스(20/60)', 'Dead cross 20/60', 'flag', 65, '1 when sma_20 crossed below sma_60 within the last 5 trading days.'),
  trend('macd', 'MACD', 'MACD', 'KRW', 26, 'ema_12 − ema_26.'),
  trend('macd_signal', 'MACD 시그널', 'MACD signal', 'KRW', 34, '9-day EMA of the MACD line.'),
  trend('macd_histogram', 'MACD 오실레이터', 'MACD histogram', 'KRW', 34, 'macd − macd_signal.'),
  trend('adx_14', '평균방향지수(ADX)', 'ADX (14)', 'index', 28, "Wilder's 14-day average of DX = |+DI − −DI| / (+DI + −DI) × 100."),
  trend('plus_di_14', '+DI', '+DI (14)', 'index', 15, '100 × Wilder-smoothed +DM / Wilder-smoothed true range, 14 days.'),
  trend('minus_di_14', '−DI', '−DI (14)', 'index', 15, '100 × Wilder-smoothed −DM / Wilder-smoothed true range, 14 days.'),
] as const;

/** Oscillators. */
export const OSCILLATOR_INDICATORS = [
  osc('rsi_14', '상대강도지수(RSI)', 'RSI (14)', 'index', 15, "100 − 100/(1 + avg gain / avg loss), Wilder smoothing over 14 changes; 100 when there were no losses."),
  osc('stoch_k', '스토캐스틱 %K', 'Slow stochastic %K', 'index', 16, 'Slow %K (14,3,3): 3-day SMA of (close − 14-day low) / (14-day high − low) × 100.'),
  osc('stoch_d', '스토캐스틱 %D', 'Slow stochastic %D', 'index', 18, 'Slow %D (14,3,3): 3-day SMA of slow %K.'),
  osc('williams_r_14', '윌리엄스 %R', 'Williams %R (14)', 'index', 14, '(14-day high − close) / (14-day high − 14-day low) × −100, −100..0.'),
  osc('cci_20', '상품채널지수(CCI)', 'CCI (20)', 'index', 20, '(TP − 20-day SMA of TP) / (0.015 × mean absolute deviation), TP = (H + L + C) / 3.'),
  osc('mfi_14', '자금흐름지수(MFI)', 'Money Flow Index (14)', 'index', 15, '100 − 100/(1 + positive / negative money flow over 14 days), flow = TP × volume.'),
  osc('psy_10', '투자심리선', 'Psychological line (10)', '%', 11, 'Share of up closes among the last 10 daily changes × 100.'),
] as const;

/** Volatility indicators. */
export const VOLATILITY_INDICATORS = [
  vol('atr_14', '평균진폭(ATR)', 'Average True Range (14)', 'KRW', 14, "Wilder's 14-day average of the true range."),
  vol('atr_percent', 'ATR 비율', 'ATR %', '%', 14, 'atr_14 / close × 100.'),
  vol('bb_upper', '볼린저밴드 상단', 'Bollinger upper band', 'KRW', 20, '20-day SMA + 2 × population standard deviation of closes.'),
  vol('bb_lower', '볼린저밴드 하단', 'Bollinger lower band', 'KRW', 20, '20-day SMA − 2 × population standard deviation of closes.'),
  vol('bb_percent_b', '볼린저밴드 %B', 'Bollinger %B', 'ratio', 20, '(close − lower) / (upper − lower); 1 at the upper band.'),
  vol('bb_bandwidth', '볼린저밴드 폭', 'Bollinger bandwidth', '%', 20, '(upper − lower) / middle × 100.'),
  vol('volatility_20', '20일 변동성', '20-day volatility', '%', 21, 'Sample stdev of the last 20 daily log returns × √252 × 100.'),
  vol('beta_250', '베타', 'Beta (250 days)', 'ratio', 121, 'cov/var of daily returns vs the market index over the last 250 days; needs ≥ 120 overlapping days.', ['prices', 'index']),
  vol('max_drawdown_1y', '1년 최대낙폭', 'Max drawdown (1 year)', '%', 252, 'Worst close-to-close fall from a running peak within the last 252 closes, ≤ 0.'),
] as const;

/** Volume indicators. */
export const VOLUME_INDICATORS = [
  volume('obv', '온밸런스 볼륨(OBV, 20일)', 'On-balance volume (20-day)', 'shares', 21, 'OBV today minus OBV 20 bars ago: Σ volume on up closes − Σ volume on down closes over the last 20 daily changes (a fixed window, so values compare across stocks whatever history is loaded).'),
  volume('cmf_20', '차이킨 자금흐름(CMF)', 'Chaikin Money Flow (20)', 'ratio', 20, 'Σ money-flow volume / Σ volume over 20 days, multiplier ((C − L) − (H − C)) / (H − L).'),
] as const;

/** Event flags (1/0). */
export const EVENT_INDICATORS = [
  event('breakout_20', '20일 고점 돌파', '20-day breakout', 'flag', 21, '1 when the close is above the highest high of the previous 20 bars (0 when halted today).'),
  event('new_high_52w', '52주 신고가', 'New 52-week high', 'flag', 252, '1 when the high is ≥ the highest high of the previous 251 bars (0 when halted today).'),
  event('limit_up', '상한가', 'Limit up', 'flag', 2, '1 when the close is at the +30% KRX limit from the previous close, rounded down to the tick (0 when halted today).'),
  event('limit_down', '하한가', 'Limit down', 'flag', 2, '1 when the close is at the −30% KRX limit from the previous close, rounded up to the tick (0 when halted today).'),
] as const;
