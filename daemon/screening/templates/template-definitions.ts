/**
 * The predefined screens, as data. Thresholds are for real KRX data: amounts
 * in KRW (1억 = 1e8, 1조 = 1e12), ratios, returns and yields in percent.
 * `required_fields` lists every indicator the filters and expression read
 * (a test keeps it in step); sort fields are not required since nulls sort last.
 * Multi-factor templates read their factors through `columns` and `score`:
 * percentiles are taken over the template's universe, before its filters.
 */

import type { StockFlag } from '../engine/snapshot.js';
import type { ScreenTemplate } from './template-types.js';

// Financial-statement screens leave out preferred shares: their statements are the common share's.
const FUNDAMENTAL_EXCLUDE: StockFlag[] = ['administrative', 'spac', 'preferred', 'halted'];
const TECHNICAL_EXCLUDE: StockFlag[] = ['administrative', 'spac', 'halted'];
/** 5억 KRW a day: below that a chart signal is mostly noise. */
const LIQUID = { field: 'avg_trading_value_20', min: 5e8 };

/** The templates, in display order. */
export const TEMPLATE_DEFINITIONS: readonly ScreenTemplate[] = Object.freeze<ScreenTemplate[]>([
  {
    id: 'value',
    name_ko: '저평가 가치주',
    name_en: 'Value',
    description: 'PER 10배 이하, PBR 1배 이하, ROE 8% 이상, 시가총액 500억 이상. Cheap on earnings and book while still profitable.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      filters: [{ field: 'per', max: 10 }, { field: 'pbr', max: 1 }, { field: 'roe', min: 8 }, { field: 'market_cap', min: 5e10 }],
      sort: [{ field: 'per', direction: 'asc' }],
    },
    required_fields: ['per', 'pbr', 'roe', 'market_cap'],
  },
  {
    id: 'dividend',
    name_ko: '고배당주',
    name_en: 'High dividend',
    description: '배당수익률 4% 이상, PER 15배 이하, 시가총액 1,000억 이상. High trailing dividend yield backed by earnings.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      filters: [{ field: 'dividend_yield', min: 4 }, { field: 'per', max: 15 }, { field: 'market_cap', min: 1e11 }],
      sort: [{ field: 'dividend_yield', direction: 'desc' }],
    },
    required_fields: ['dividend_yield', 'per', 'market_cap'],
  },
  {
    id: 'growth',
    name_ko: '고성장주',
    name_en: 'Growth',
    description: '매출·영업이익 전년 대비(TTM) 20% 이상 성장, 영업이익률 5% 이상. Fast, profitable growth.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      filters: [
        { field: 'revenue_growth_yoy', min: 20 },
        { field: 'operating_profit_growth_yoy', min: 20 },
        { field: 'operating_margin', min: 5 },
      ],
      sort: [{ field: 'revenue_growth_yoy', direction: 'desc' }],
    },
    required_fields: ['revenue_growth_yoy', 'operating_profit_growth_yoy', 'operating_margin'],
  },
  {
    id: 'quality',
    name_ko: '우량주',
    name_en: 'Quality',
    description: 'Piotroski F-score 7 이상, 퀄리티 점수 70 이상, 부채비율 150% 이하. Strong, improving, conservatively financed.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      filters: [{ field: 'piotroski_f_score', min: 7 }, { field: 'quality_score', min: 70 }, { field: 'debt_ratio', max: 150 }],
      sort: [{ field: 'quality_score', direction: 'desc' }, { field: 'piotroski_f_score', direction: 'desc' }],
    },
    required_fields: ['piotroski_f_score', 'quality_score', 'debt_ratio'],
  },
  {
    id: 'momentum',
    name_ko: '모멘텀',
    name_en: 'Momentum',
    description: '12-1개월 수익률 20% 이상, 12개월 시장 대비 초과수익, 200일선 위. Winners of the past year, skipping the last month.',
    query: {
      universe: { exclude: TECHNICAL_EXCLUDE },
      filters: [{ field: 'momentum_12_1', min: 20 }, { field: 'rs_12m', min: 0 }, LIQUID],
      expression: 'close > sma_200',
      sort: [{ field: 'momentum_12_1', direction: 'desc' }],
    },
    required_fields: ['momentum_12_1', 'rs_12m', 'avg_trading_value_20', 'close', 'sma_200'],
  },
  {
    id: 'golden-cross-20-60',
    name_ko: '골든크로스 (20일/60일)',
    name_en: 'Golden cross 20/60',
    description: '최근 5거래일 안에 20일선이 60일선을 상향 돌파. The 20-day average crossed above the 60-day average this week.',
    query: {
      universe: { exclude: TECHNICAL_EXCLUDE },
      filters: [{ field: 'golden_cross_20_60', min: 1 }, LIQUID],
      sort: [{ field: 'trading_value', direction: 'desc' }],
    },
    required_fields: ['golden_cross_20_60', 'avg_trading_value_20'],
  },
  {
    id: '52w-high-breakout',
    name_ko: '52주 신고가 돌파',
    name_en: '52-week high breakout',
    description: '오늘 52주 신고가를 경신하고 거래량이 20일 평균의 1.5배 이상. New 52-week high on rising volume.',
    query: {
      universe: { exclude: TECHNICAL_EXCLUDE },
      filters: [{ field: 'new_high_52w', min: 1 }, { field: 'relative_volume', min: 1.5 }, LIQUID],
      sort: [{ field: 'relative_volume', direction: 'desc' }],
    },
    required_fields: ['new_high_52w', 'relative_volume', 'avg_trading_value_20'],
  },
  {
    id: 'ma-alignment',
    name_ko: '이동평균 정배열',
    name_en: 'Moving-average alignment',
    description: '5일 > 20일 > 60일 > 120일 이동평균(정배열)이고 종가가 20일선 위. A clean, orderly uptrend.',
    query: {
      universe: { exclude: TECHNICAL_EXCLUDE },
      filters: [{ field: 'ma_alignment', min: 1 }, LIQUID],
      expression: 'close > sma_20',
      sort: [{ field: 'return_3m', direction: 'desc' }],
    },
    required_fields: ['ma_alignment', 'avg_trading_value_20', 'close', 'sma_20'],
  },
  {
    id: 'oversold-rsi',
    name_ko: 'RSI 과매도',
    name_en: 'Oversold (RSI)',
    description: 'RSI(14) 30 이하, 시가총액 1,000억 이상. Sharp recent selling in sizeable companies.',
    query: {
      universe: { exclude: TECHNICAL_EXCLUDE },
      filters: [{ field: 'rsi_14', max: 30 }, { field: 'market_cap', min: 1e11 }, LIQUID],
      sort: [{ field: 'rsi_14', direction: 'asc' }],
    },
    required_fields: ['rsi_14', 'market_cap', 'avg_trading_value_20'],
  },
  {
    id: 'turnaround',
    name_ko: '흑자전환',
    name_en: 'Turnaround',
    description: '최근 분기 영업이익 흑자, 전년 동기 적자. Operating profit turned positive against a loss a year earlier.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      filters: [{ field: 'turnaround', min: 1 }, { field: 'market_cap', min: 3e10 }],
      sort: [{ field: 'market_cap', direction: 'desc' }],
    },
    required_fields: ['turnaround', 'market_cap'],
  },
  {
    id: 'magic-formula',
    name_ko: '마법공식 상위',
    name_en: 'Magic formula top',
    description: 'Greenblatt 마법공식(이익수익률 + 자본수익률 순위) 상위 50위, 시가총액 500억 이상.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      filters: [{ field: 'magic_formula_rank', max: 50 }, { field: 'market_cap', min: 5e10 }],
      sort: [{ field: 'magic_formula_rank', direction: 'asc' }],
      per_page: 30,
    },
    required_fields: ['magic_formula_rank', 'market_cap'],
  },
  {
    id: 'low-volatility',
    name_ko: '저변동성',
    name_en: 'Low volatility',
    description: '연환산 20일 변동성 25% 이하, 베타 0.8 이하, 시가총액 1,000억 이상. Calm stocks that move less than the market.',
    query: {
      universe: { exclude: TECHNICAL_EXCLUDE },
      filters: [{ field: 'volatility_20', max: 25 }, { field: 'beta_250', max: 0.8 }, { field: 'market_cap', min: 1e11 }],
      sort: [{ field: 'volatility_20', direction: 'asc' }],
    },
    required_fields: ['volatility_20', 'beta_250', 'market_cap'],
  },
  {
    id: 'large-cap',
    name_ko: '시가총액 상위',
    name_en: 'Large caps',
    description: '시가총액 1조 원 이상, 큰 순서. The market leaders; needs only one day of quotes.',
    query: {
      universe: { exclude: ['spac', 'halted'] },
      filters: [{ field: 'market_cap', min: 1e12 }],
      sort: [{ field: 'market_cap', direction: 'desc' }],
    },
    required_fields: ['market_cap'],
  },
  {
    id: 'limit-up',
    name_ko: '상한가',
    name_en: 'Limit up',
    description: '전일 종가 대비 +30% 가격제한폭에서 마감. Closed at the KRX daily upper price limit.',
    query: {
      universe: { exclude: ['spac'] },
      filters: [{ field: 'limit_up', min: 1 }],
      sort: [{ field: 'trading_value', direction: 'desc' }],
    },
    required_fields: ['limit_up'],
  },
  {
    id: 'value-composite',
    name_ko: '멀티팩터 가치',
    name_en: 'Value composite',
    description:
      '이익수익률 40%, 순자산/주가(1/PBR) 40%, 배당수익률 20%의 백분위 가중 점수 순. 흑자 기업, 시가총액 500억 이상. ' +
      'Cheapness on three measures at once; a stock without a dividend counts as 0 %.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      columns: [{ name: 'book_to_price', expression: '1 / pbr' }, { name: 'dividend', expression: 'coalesce(dividend_yield, 0)' }],
      score: { factors: [{ field: 'earnings_yield', weight: 0.4, direction: 'desc' }, { field: 'book_to_price', weight: 0.4, direction: 'desc' }, { field: 'dividend', weight: 0.2, direction: 'desc' }] },
      filters: [{ field: 'market_cap', min: 5e10 }],
      expression: 'per > 0 and score >= 70',
      sort: [{ field: 'score', direction: 'desc' }],
    },
    required_fields: ['earnings_yield', 'pbr', 'dividend_yield', 'market_cap', 'per'],
  },
  {
    id: 'quality-value',
    name_ko: '우량 가치주 (퀄리티+밸류)',
    name_en: 'Quality at a fair price',
    description:
      'ROE 30%, 영업이익률 20%, 낮은 부채비율 20%, 이익수익률 30%의 백분위 가중 점수 상위. 시가총액 1,000억 이상. ' +
      'Profitable, conservatively financed companies that are not expensive.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      score: {
        factors: [
          { field: 'roe', weight: 0.3, direction: 'desc' },
          { field: 'operating_margin', weight: 0.2, direction: 'desc' },
          { field: 'debt_ratio', weight: 0.2, direction: 'asc' },
          { field: 'earnings_yield', weight: 0.3, direction: 'desc' },
        ],
      },
      filters: [{ field: 'market_cap', min: 1e11 }, { field: 'roe', min: 0 }],
      expression: 'score >= 70',
      sort: [{ field: 'score', direction: 'desc' }],
    },
    required_fields: ['roe', 'operating_margin', 'debt_ratio', 'earnings_yield', 'market_cap'],
  },
  {
    id: 'momentum-quality',
    name_ko: '모멘텀 + 퀄리티',
    name_en: 'Momentum with quality',
    description:
      '업종 내 12-1개월 모멘텀 상위 30%, 그중 모멘텀 50%·3개월 수익률 20%·ROE 30% 점수 순. 흑자, 유동성 필터. ' +
      'Sector momentum leaders that also earn their keep.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      score: { factors: [{ field: 'momentum_12_1', weight: 0.5, direction: 'desc' }, { field: 'return_3m', weight: 0.2, direction: 'desc' }, { field: 'roe', weight: 0.3, direction: 'desc' }] },
      filters: [LIQUID, { field: 'roe', min: 0 }],
      expression: 'pct_rank(momentum_12_1) by sector >= 70',
      sort: [{ field: 'score', direction: 'desc' }],
    },
    required_fields: ['momentum_12_1', 'return_3m', 'roe', 'avg_trading_value_20'],
  },
  {
    id: 'sector-leaders',
    name_ko: '업종 내 우량 저평가',
    name_en: 'Sector leaders',
    description:
      '업종 안에서 ROE 상위 20%이면서 이익수익률 상위 50%, 시가총액 1,000억 이상; 업종 내 점수(ROE 50%, 이익수익률 50%) 순. ' +
      'The best and cheaper companies of each sector, compared with their peers only.',
    query: {
      universe: { exclude: FUNDAMENTAL_EXCLUDE },
      score: { factors: [{ field: 'roe', weight: 0.5, direction: 'desc' }, { field: 'earnings_yield', weight: 0.5, direction: 'desc' }], by: 'sector' },
      filters: [{ field: 'market_cap', min: 1e11 }],
      expression: 'pct_rank(roe) by sector >= 80 and pct_rank(earnings_yield) by sector >= 50',
      sort: [{ field: 'score', direction: 'desc' }],
    },
    required_fields: ['roe', 'earnings_yield', 'market_cap'],
  },
  {
    id: 'volume-surge',
    name_ko: '거래량 급증',
    name_en: 'Volume surge',
    description: '거래량이 직전 20일 평균의 3배 이상이고 상승 마감. Unusual buying interest today.',
    query: {
      universe: { exclude: TECHNICAL_EXCLUDE },
      filters: [{ field: 'relative_volume', min: 3 }, { field: 'change_percent', min: 0.01 }, { field: 'trading_value', min: 1e9 }],
      sort: [{ field: 'relative_volume', direction: 'desc' }],
    },
    required_fields: ['relative_volume', 'change_percent', 'trading_value'],
  },
]);
