import { describe, expect, it } from 'vitest';
import { screenColumns, screenSummary, screenTable } from '../../../../../cli/services/screening/screen-rows.js';
import type { ScreenBody } from '../../../../../daemon/contract/screening.js';

const item = { code: '005930', name: '삼성전자', market: 'KOSPI', sector: '전기전자', close: 199400, change_percent: -0.55, market_cap: 1_180_375_801_646_800, per: 12.345678, roe: null };

describe('screen rows', () => {
  it('keeps raw values in item key order for piped output', () => {
    const table = screenTable([item], false);
    expect(table.headers).toEqual(['CODE', 'NAME', 'MARKET', 'SECTOR', 'CLOSE', 'CHANGE_PERCENT', 'MARKET_CAP', 'PER', 'ROE']);
    expect(table.rows[0]).toEqual(['005930', '삼성전자', 'KOSPI', '전기전자', 199400, -0.55, 1_180_375_801_646_800, 12.345678, null]);
  });

  it('formats numbers with the units of /screen/fields on a terminal', () => {
    const [row] = screenTable([item], true, new Map([['per', 'x'], ['roe', '%']])).rows;
    expect(row!.slice(4)).toEqual([{ text: '199,400' }, { text: '-0.55%', tone: 'bad' }, { text: '1,180.38조' }, { text: '12.35x' }, { text: '-', tone: 'muted' }]);
  });

  it('has the base columns for an empty page, and a summary with the query time', () => {
    expect(screenColumns([])).toEqual(['code', 'name', 'market', 'sector', 'close', 'change_percent', 'market_cap']);
    const body = { status: 'success', data: [], stocks: [], filters_applied: { market: 'ALL', _count: 0 }, query_time_ms: 0.42, meta: { timestamp: 't', request_id: 'r', total: 1234, page: 2, per_page: 50, total_pages: 25, snapshot_version: 'v', cached: true } } as ScreenBody;
    expect(screenSummary(body)).toBe('1,234 matches · page 2 of 25 · 0.42 ms (cached)');
  });
});
