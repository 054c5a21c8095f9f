/** The screening-language flags of `stockscreen screen`: --column, --score, --score-by. */
import { describe, expect, it } from 'vitest';
import { INDICATORS } from '../../../../../daemon/indicators/registry.js';
import { parseScreenRequest } from '../../../../../daemon/screening/request/request.js';
import { usageOf } from '../../../../helpers/cli-errors.js';
import { buildScreenBody, hasQueryFlags, parseColumnFlags, parseScoreFlags } from '../../../../../cli/services/screening/screen-flags.js';

describe('--column', () => {
  it('keeps the order, lower-cases the name and keeps "=" inside the expression', () => {
    expect(parseColumnFlags(['EY=1/per*100', 'flag=coalesce(per, 0)', 'x = pct_rank(ey) by sector'])).toEqual({ ey: '1/per*100', flag: 'coalesce(per, 0)', x: 'pct_rank(ey) by sector' });
  });

  it('refuses a missing "=", an empty expression, a bad or repeated name and more than 20 columns', () => {
    expect(usageOf(() => parseColumnFlags(['ey'])).message).toMatch(/missing "="/);
    expect(usageOf(() => parseColumnFlags(['ey= '])).message).toMatch(/expression is empty/);
    expect(usageOf(() => parseColumnFlags(['1x=per'])).message).toMatch(/not a field name/);
    expect(usageOf(() => parseColumnFlags(['a=1', 'A=2'])).message).toMatch(/defined twice/);
    expect(usageOf(() => parseColumnFlags(Array.from({ length: 21 }, (_, i) => `c${i}=1`))).message).toMatch(/at most 20/);
  });
});

describe('--score', () => {
  it('reads comma-separated and repeated factors, "-" for ascending', () => {
    expect(parseScoreFlags(['roe=0.4,-per=0.3', 'return_3m=0.3'])).toEqual({ roe: 0.4, '-per': 0.3, return_3m: 0.3 });
  });

  it('refuses a missing weight, a weight ≤ 0 and a factor given twice', () => {
    expect(usageOf(() => parseScoreFlags(['roe'])).message).toMatch(/missing "=weight"/);
    expect(usageOf(() => parseScoreFlags(['roe=0'])).message).toMatch(/greater than 0/);
    expect(usageOf(() => parseScoreFlags(['roe=x'])).message).toMatch(/not a number/);
    expect(usageOf(() => parseScoreFlags(['roe=1,-roe=1'])).message).toMatch(/given twice/);
  });
});

describe('the request body', () => {
  it('is a request the server accepts, with columns usable in --where and --sort', () => {
    const body = buildScreenBody({ column: ['ey=1/per*100'], score: ['roe=0.4,-per=0.3'], scoreBy: 'Sector', where: 'pct_rank(roe) by sector >= 90 and ey > 5', sort: ['score:desc'] });
    expect(body).toEqual({
      columns: { ey: '1/per*100' }, score: { roe: 0.4, '-per': 0.3 }, score_by: 'sector', expression: 'pct_rank(roe) by sector >= 90 and ey > 5', sort: [{ field: 'score', direction: 'desc' }],
    });
    const query = parseScreenRequest(body, new Set(INDICATORS.map((d) => d.id)));
    expect(query.columns).toEqual([{ name: 'ey', expression: '1/per*100' }]);
    expect(query.sort).toEqual([{ field: 'score', direction: 'desc' }]);
  });

  it('refuses --score-by without --score or with an unknown group; columns and score are query flags', () => {
    expect(usageOf(() => buildScreenBody({ scoreBy: 'sector' })).message).toMatch(/needs --score/);
    expect(usageOf(() => buildScreenBody({ score: ['roe=1'], scoreBy: 'country' })).message).toMatch(/not one of sector, industry, market/);
    expect(hasQueryFlags({ column: ['a=1'] })).toBe(true);
    expect(hasQueryFlags({ score: ['roe=1'] })).toBe(true);
  });
});
