import { describe, expect, it } from 'vitest';
import {
  INDICATOR_CATEGORIES,
  INDICATOR_IDS,
  INDICATOR_INPUTS,
  INDICATOR_UNITS,
  INDICATORS,
  emptyIndicatorValues,
  getIndicator,
  isIndicatorId,
} from '../../../../daemon/indicators/registry.js';

/** The contract list of ids every consumer relies on (screening, templates). */
const REQUIRED_IDS = `
close open high low change change_percent volume trading_value avg_volume_20 avg_trading_value_20
relative_volume market_cap shares_outstanding turnover
return_1w return_1m return_3m return_6m return_12m return_ytd momentum_12_1 high_52w low_52w
dist_52w_high dist_52w_low rs_3m rs_12m
sma_5 sma_20 sma_60 sma_120 sma_200 ema_12 ema_26 dist_sma_20 dist_sma_60 dist_sma_200 disparity_20
ma_alignment golden_cross_20_60 dead_cross_20_60 macd macd_signal macd_histogram adx_14 plus_di_14 minus_di_14
rsi_14 stoch_k stoch_d williams_r_14 cci_20 mfi_14 psy_10
atr_14 atr_percent bb_upper bb_lower bb_percent_b bb_bandwidth volatility_20 beta_250 max_drawdown_1y
obv cmf_20
breakout_20 new_high_52w limit_up limit_down
per pbr psr por earnings_yield eps bps graham_ratio peg dividend_yield
roe roa operating_margin net_margin gross_margin asset_turnover debt_ratio equity_ratio current_ratio
revenue_growth_yoy operating_profit_growth_yoy net_profit_growth_yoy revenue_growth_qoq turnaround
piotroski_f_score altman_z value_score quality_score growth_score momentum_score overall_score magic_formula_rank
`
  .trim()
  .split(/\s+/);

describe('indicator registry', () => {
  it('has unique snake_case ids, at least 70 of them', () => {
    expect(new Set(INDICATOR_IDS).size).toBe(INDICATOR_IDS.length);
    expect(INDICATOR_IDS.length).toBeGreaterThanOrEqual(70);
    for (const id of INDICATOR_IDS) expect(id).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('contains every contract id', () => {
    expect(REQUIRED_IDS.length).toBe(101); // guards against a truncated copy of the list
    const missing = REQUIRED_IDS.filter((id) => !isIndicatorId(id));
    expect(missing).toEqual([]);
  });

  it('describes every entry completely', () => {
    for (const d of INDICATORS) {
      expect(INDICATOR_UNITS).toContain(d.unit);
      expect(INDICATOR_CATEGORIES).toContain(d.category);
      for (const input of d.inputs) expect(INDICATOR_INPUTS).toContain(input);
      expect(d.label_en.length).toBeGreaterThan(0);
      expect(d.label_ko, d.id).toMatch(/[\uac00-\ud7a3]|^[A-Z+−-]/);
      expect(Number.isInteger(d.min_history) && d.min_history >= 0).toBe(true);
      expect(d.definition.length, d.id).toBeGreaterThan(10);
    }
  });

  it('uses the usual Korean names and sensible units', () => {
    expect(getIndicator('per')?.label_ko).toContain('주가수익비율');
    expect(getIndicator('pbr')?.label_ko).toContain('주가순자산비율');
    expect(getIndicator('debt_ratio')?.label_ko).toBe('부채비율');
    expect(getIndicator('roe')?.unit).toBe('%');
    expect(getIndicator('limit_up')?.unit).toBe('flag');
    expect(getIndicator('magic_formula_rank')?.unit).toBe('rank');
    expect(getIndicator('rs_3m')?.inputs).toContain('index');
    expect(getIndicator('value_score')?.inputs).toContain('cross_section');
    expect(getIndicator('piotroski_f_score')?.definition).toMatch(/missing/);
  });

  it('declares the history each windowed indicator needs', () => {
    expect(getIndicator('sma_200')?.min_history).toBe(200);
    expect(getIndicator('rsi_14')?.min_history).toBe(15);
    expect(getIndicator('return_12m')?.min_history).toBe(253);
    expect(getIndicator('per')?.min_history).toBeLessThanOrEqual(1);
  });

  it('rejects unknown ids', () => {
    expect(isIndicatorId('nope')).toBe(false);
    expect(getIndicator('nope')).toBeUndefined();
  });

  it('builds empty value objects with exactly the registry keys', () => {
    const empty = emptyIndicatorValues();
    expect(Object.keys(empty).sort()).toEqual([...INDICATOR_IDS].sort());
    expect(Object.values(empty).every((v) => v === null)).toBe(true);
  });
});
