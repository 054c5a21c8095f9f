import { describe, expect, it } from 'vitest';
import { INDICATOR_IDS as REGISTERED } from '../../../../../daemon/indicators/registry.js';
import { parseExpression } from '../../../../../daemon/screening/language/expression.js';
import { executeQuery } from '../../../../../daemon/screening/engine/query.js';
import { parseScreenRequest } from '../../../../../daemon/screening/request/request.js';
import { buildSnapshot, emptySnapshot } from '../../../../../daemon/screening/engine/snapshot.js';
import {
  applyTemplateOverrides,
  getTemplate,
  listTemplates,
  missingInputs,
  requireTemplate,
  templateColumnNames,
} from '../../../../../daemon/screening/templates/templates.js';
import { ROWS } from '../fixture.js';

// The indicator ids of the contract between indicators, screening and templates.
const INDICATOR_IDS = new Set(`
close open high low change change_percent volume trading_value avg_volume_20 avg_trading_value_20 relative_volume market_cap
shares_outstanding turnover return_1w return_1m return_3m return_6m return_12m return_ytd momentum_12_1 high_52w low_52w
dist_52w_high dist_52w_low rs_3m rs_12m sma_5 sma_20 sma_60 sma_120 sma_200 ema_12 ema_26 dist_sma_20 dist_sma_60
dist_sma_200 disparity_20 ma_alignment golden_cross_20_60 dead_cross_20_60 macd macd_signal macd_histogram adx_14 plus_di_14
minus_di_14 rsi_14 stoch_k stoch_d williams_r_14 cci_20 mfi_14 psy_10 atr_14 atr_percent bb_upper bb_lower bb_percent_b
bb_bandwidth volatility_20 beta_250 max_drawdown_1y obv cmf_20 breakout_20 new_high_52w limit_up limit_down per pbr psr por
earnings_yield eps bps graham_ratio peg dividend_yield roe roa operating_margin net_margin gross_margin asset_turnover
debt_ratio equity_ratio current_ratio revenue_growth_yoy operating_profit_growth_yoy net_profit_growth_yoy revenue_growth_qoq
turnaround piotroski_f_score altman_z value_score quality_score growth_score momentum_score overall_score magic_formula_rank
`.split(/\s+/).filter(Boolean));

const REQUIRED_IDS = [
  'value', 'dividend', 'growth', 'quality', 'momentum', 'golden-cross-20-60', '52w-high-breakout',
  'ma-alignment', 'oversold-rsi', 'turnaround', 'magic-formula', 'low-volatility',
];

describe('template catalogue', () => {
  it('has at least the twelve predefined screens with unique kebab-case ids', () => {
    const ids = listTemplates().map((t) => t.id);
    expect(ids.length).toBeGreaterThanOrEqual(12);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(REQUIRED_IDS));
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it.each(listTemplates().map((t) => [t.id, t] as const))('%s names only contract indicators and lists them as required', (_, t) => {
    expect(t.name_ko).toMatch(/[가-힣]/);
    expect(t.name_en).not.toBe('');
    expect(t.description).not.toBe('');
    // Formula columns and the score are the template's own fields; what they read is required.
    const own = new Set(templateColumnNames(t));
    const known = new Set([...INDICATOR_IDS, ...own]);
    const filterFields = (t.query.filters ?? []).map((f) => f.field);
    const expressionFields = t.query.expression ? parseExpression(t.query.expression, known).fields : [];
    const columnFields = (t.query.columns ?? []).flatMap((c) => parseExpression(c.expression, known).fields);
    const scoreFields = (t.query.score?.factors ?? []).map((f) => f.field);
    for (const field of [...filterFields, ...(t.query.sort ?? []).map((s) => s.field), ...t.required_fields]) {
      expect(known.has(field), field).toBe(true);
    }
    const read = [...filterFields, ...expressionFields, ...columnFields, ...scoreFields].filter((f) => !own.has(f));
    expect([...t.required_fields].sort()).toEqual([...new Set(read)].sort());
    for (const f of t.query.filters ?? []) {
      if (f.min !== undefined && f.max !== undefined) expect(f.min).toBeLessThanOrEqual(f.max);
    }
  });

  it.each(listTemplates().map((t) => [t.id, t] as const))('%s survives the request validator unchanged', (_, t) => {
    const query = applyTemplateOverrides(t);
    const body = {
      ...query.universe,
      filters: Object.fromEntries(query.filters.map((f) => [f.field, { min: f.min ?? null, max: f.max ?? null }])),
      expression: query.expression,
      sort: query.sort,
      per_page: query.per_page,
      ...(query.columns ? { columns: Object.fromEntries(query.columns.map((c) => [c.name, c.expression])) } : {}),
      ...(query.score ? { score: Object.fromEntries(query.score.factors.map((f) => [`${f.direction === 'asc' ? '-' : ''}${f.field}`, f.weight])), score_by: query.score.by } : {}),
    };
    const reparsed = parseScreenRequest(body, INDICATOR_IDS);
    expect(reparsed.columns).toEqual(query.columns);
    expect(reparsed.score).toEqual(query.score);
    expect(reparsed.filters).toEqual([...query.filters].sort((a, b) => (a.field < b.field ? -1 : 1)));
    expect(reparsed.sort).toEqual(query.sort);
  });

  it('uses only indicators the registry computes', () => {
    const registered = new Set<string>(REGISTERED);
    const used = listTemplates().flatMap((t) => [...t.required_fields, ...(t.query.sort ?? []).map((s) => s.field).filter((f) => !templateColumnNames(t).includes(f))]);
    expect(used.filter((field) => !registered.has(field))).toEqual([]);
  });

  it('finds templates by id', () => {
    expect(getTemplate('value')?.name_en).toBe('Value');
    expect(getTemplate('nope')).toBeUndefined();
    expect(() => requireTemplate('nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND', status: 404 }));
  });
});

describe('applyTemplateOverrides', () => {
  const value = requireTemplate('value');

  it('fills paging defaults and keeps the template screen', () => {
    const q = applyTemplateOverrides(value);
    expect(q).toMatchObject({ page: 1, per_page: 50, fields: [], sort: [{ field: 'per', direction: 'asc' }] });
    expect(q.filters).toEqual(value.query.filters);
    expect(applyTemplateOverrides(requireTemplate('magic-formula')).per_page).toBe(30);
  });

  it('applies market, sort, page, per_page and fields without touching the template', () => {
    const before = JSON.stringify(value);
    const q = applyTemplateOverrides(value, {
      market: 'KOSDAQ', sort: [{ field: 'roe', direction: 'desc' }], page: 3, per_page: 10, fields: ['rsi_14'],
    });
    expect(q).toMatchObject({ universe: { market: 'KOSDAQ' }, sort: [{ field: 'roe', direction: 'desc' }], page: 3, per_page: 10, fields: ['rsi_14'] });
    q.universe.exclude?.push('halted');
    q.filters.push({ field: 'x' });
    expect(JSON.stringify(value)).toBe(before);
    expect(applyTemplateOverrides(value, { market: 'ALL' }).universe.market).toBeUndefined();
  });
});

describe('running templates', () => {
  it('value picks cheap, profitable, ordinary shares (fixture market)', () => {
    const snapshot = buildSnapshot(ROWS, [...INDICATOR_IDS], 'v');
    const result = executeQuery(snapshot, applyTemplateOverrides(requireTemplate('value')));
    // per ≤ 10, pbr ≤ 1, roe ≥ 8, mcap ≥ 5e10: 000010 (5/0.5/12) and 000040 (10/1/15, on the boundary);
    // 000045 is preferred and 000080 halted (excluded); 000030 has no per, 0126Z0 per 15. Sorted by per asc.
    expect(result.items.map((i) => i.code)).toEqual(['000010', '000040']);
  });

  it('names the inputs no stock has', () => {
    // Quotes only: per and pbr null everywhere, market_cap and roe present on some.
    const quotesOnly = buildSnapshot(ROWS.map((r) => ({ ...r, values: { market_cap: r.values.market_cap ?? null, roe: r.values.roe ?? null } })), ['market_cap', 'per', 'pbr', 'roe'], 'v');
    expect(missingInputs(requireTemplate('value'), quotesOnly)).toEqual(['per', 'pbr']);
    expect(missingInputs(requireTemplate('large-cap'), quotesOnly)).toEqual([]);
    expect(missingInputs(requireTemplate('large-cap'), emptySnapshot(['market_cap']))).toEqual(['market_cap']);
  });
});
