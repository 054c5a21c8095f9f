/**
 * The indicator fields a query reads (an as-of screen builds a snapshot of just these):
 * the answer's base columns, filters, sort keys, expression fields, the fields formula columns
 * and the score read, and requested fields — formula names and text attributes left out.
 */
import { describe, expect, it } from 'vitest';
import { indicatorFieldsOf } from '../../../../daemon/screening/engine/query.js';
import { parseScreenRequest } from '../../../../daemon/screening/request/request.js';
import { INDICATOR_IDS } from '../../../../daemon/indicators/registry.js';

const KNOWN: ReadonlySet<string> = new Set(INDICATOR_IDS);

describe('indicatorFieldsOf', () => {
  it('lists every indicator the answer and its computation read, once', () => {
    const query = parseScreenRequest({
      filters: { market: 'KOSPI', ey: { min: 5 }, rsi_14: { max: 70 }, expression: 'close > sma_20 and vq > 10' },
      sort: [{ field: 'score', direction: 'desc' }, { field: 'roe', direction: 'desc' }],
      columns: { ey: '1 / per * 100', vq: 'pct_rank(ey) + pct_rank(pbr) by sector' },
      score: { roe: 0.5, '-debt_ratio': 0.5 },
      fields: ['volume', 'industry'],
    }, KNOWN);
    const fields = indicatorFieldsOf(query, KNOWN);
    expect([...fields].sort()).toEqual(['change_percent', 'close', 'debt_ratio', 'market_cap', 'pbr', 'per', 'roe', 'rsi_14', 'sma_20', 'volume'].sort());
    expect(new Set(fields).size).toBe(fields.length);
  });
});
