/**
 * The screening language end to end over a loaded sample market: cross-sectional
 * functions against an independent computation over the rows the API returns, formula columns
 * in filters, sort and CSV, the score against a computation from the returned factors,
 * presets round-trip, the new templates, GET /screen/fields, and 400s with positions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refPctRank, refRank, refZscore, type Obs } from '../../helpers/cross-section-reference.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

type Item = Record<string, any>;

describe('screening language over a sample market', () => {
  let t: TestDaemon;
  let token: string;
  const screen = async (json: unknown, headers: Record<string, string> = {}) => t.request('/api/v1/screen', { method: 'POST', json, token, headers });
  const items = async (json: unknown): Promise<{ body: any; stocks: Item[] }> => {
    const res = await screen(json);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body.error)).toBe(200);
    return { body, stocks: body.stocks as Item[] };
  };
  const obs = (rows: Item[], field: string, group = 'sector'): Obs[] => rows.map((r) => ({ key: r.code, value: r[field], group: r[group] }));
  const expectMatches = (rows: Item[], column: string, expected: Map<string, number | null>) => {
    for (const r of rows) {
      const want = expected.get(r.code);
      if (want === null || want === undefined) expect(r[column], `${column} ${r.code}`).toBeNull();
      else expect(r[column], `${column} ${r.code}`).toBeCloseTo(want, 9);
    }
  };

  beforeAll(async () => {
    t = await startTestDaemon('lang', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 21, stocks: 150, days: 300 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    token = (await t.login()).access_token;
  }, 120_000);
  afterAll(() => t.close());

  it('rank, rank_asc, pct_rank and zscore (whole universe and by sector) equal an independent computation over the returned rows', async () => {
    const columns = {
      r: 'rank(roe)', ra: 'rank_asc(per)', p: 'pct_rank(roe)', ps: 'pct_rank(roe) by sector', z: 'zscore(return_3m)', zs: 'zscore(return_3m) by sector', rs: 'rank(market_cap) by sector',
    };
    const { body, stocks } = await items({ market: 'KOSPI', exclude: ['spac'], columns, fields: ['roe', 'per', 'return_3m'], per_page: 500 });
    expect(stocks.length).toBe(body.meta.total);
    expect(stocks.some((s) => s.roe === null)).toBe(true); // nulls are part of the test
    expectMatches(stocks, 'r', refRank(obs(stocks, 'roe'), false));
    expectMatches(stocks, 'ra', refRank(obs(stocks, 'per'), false, true));
    expectMatches(stocks, 'p', refPctRank(obs(stocks, 'roe'), false));
    expectMatches(stocks, 'ps', refPctRank(obs(stocks, 'roe'), true));
    expectMatches(stocks, 'z', refZscore(obs(stocks, 'return_3m'), false));
    expectMatches(stocks, 'zs', refZscore(obs(stocks, 'return_3m'), true));
    expectMatches(stocks, 'rs', refRank(obs(stocks, 'market_cap'), true));
    expect(body.meta.columns.map((c: any) => c.name)).toEqual(Object.keys(columns));
  });

  it('filters on pct_rank by sector over the universe, before the other filters', async () => {
    const universe = (await items({ market: 'KOSDAQ', fields: ['roe', 'per'], per_page: 500 })).stocks;
    const pct = refPctRank(obs(universe, 'roe'), true);
    const expected = universe.filter((s) => (pct.get(s.code) ?? -1) >= 80 && s.per !== null && s.per > 0).map((s) => s.code).sort();
    const { stocks } = await items({ market: 'KOSDAQ', expression: 'pct_rank(roe) by sector >= 80 and per > 0', sort: 'code:asc', per_page: 500 });
    expect(stocks.map((s) => s.code)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
  });

  it('uses formula columns in range filters, the expression, sort, fields and the CSV', async () => {
    const q = { columns: { ey: '1 / per * 100', ey_rank: 'pct_rank(ey)' }, filters: { ey: { min: 2 } }, expression: 'ey_rank > 10', sort: [{ field: 'ey', direction: 'desc' }], fields: ['per'], per_page: 500 };
    const { stocks } = await items(q);
    expect(stocks.length).toBeGreaterThan(0);
    for (const s of stocks) {
      expect(s.ey).toBeCloseTo((1 / s.per) * 100, 9);
      expect(s.ey).toBeGreaterThanOrEqual(2);
      expect(s.ey_rank).toBeGreaterThan(10);
    }
    const eys = stocks.map((s) => s.ey);
    expect(eys).toEqual([...eys].sort((a, b) => b - a));
    const csv = await screen({ ...q, per_page: 5 }, { accept: 'text/csv' });
    const lines = (await csv.text()).trim().split('\r\n');
    const header = lines[0]!.split(',');
    expect(header).toEqual(expect.arrayContaining(['ey', 'ey_rank', 'per']));
    expect(lines).toHaveLength(stocks.length + 1);
    const at = header.indexOf('ey');
    expect(lines.slice(1).map((l) => Number(l.split(',')[at]))).toEqual(eys);
    const shapeB = await items({ columns: q.columns, min_ey: 2, expression: q.expression, sort_by: 'ey', order: 'desc', fields: 'per', per_page: 500 });
    expect(shapeB.stocks.map((s) => s.code)).toEqual(stocks.map((s) => s.code));
  });

  it('computes the score as the weighted mean of factor percentiles, null when a factor is null', async () => {
    const { stocks } = await items({ market: 'KOSPI', score: { roe: 0.4, '-per': 0.3, return_3m: 0.3 }, fields: ['roe', 'per', 'return_3m'], sort: 'score:desc', per_page: 500 });
    const roe = refPctRank(obs(stocks, 'roe'), false);
    const per = refPctRank(stocks.map((s) => ({ key: s.code, value: s.per === null ? null : -s.per })), false);
    const ret = refPctRank(obs(stocks, 'return_3m'), false);
    for (const s of stocks) {
      const parts = [roe.get(s.code), per.get(s.code), ret.get(s.code)];
      if (parts.some((p) => p === null || p === undefined)) expect(s.score, s.code).toBeNull();
      else expect(s.score, s.code).toBeCloseTo(0.4 * parts[0]! + 0.3 * parts[1]! + 0.3 * parts[2]!, 9);
    }
    const scores = stocks.map((s) => s.score).filter((v) => v !== null);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const top = await items({ market: 'KOSPI', score: { roe: 0.4, '-per': 0.3, return_3m: 0.3 }, expression: 'score >= 60', per_page: 500 });
    expect(top.stocks.map((s) => s.code).sort()).toEqual(stocks.filter((s) => s.score !== null && s.score >= 60).map((s) => s.code).sort());
  });

  it('saves columns and score in a preset that round-trips and runs like POST /screen', async () => {
    const query = { market: 'KOSPI', columns: { ey: '1 / per * 100' }, score: { ey: 1, roe: 1 }, sort: [{ field: 'score', direction: 'desc' }], limit: 10 };
    const created = await t.request('/api/v1/screen/presets', { method: 'POST', token, json: { name: 'multi-factor', query } });
    expect(created.status).toBe(201);
    const preset = ((await created.json()) as any).data;
    const fetched = ((await (await t.request(`/api/v1/screen/presets/${preset.id}`, { token })).json()) as any).data;
    expect(fetched.query).toEqual(query);
    const ran = ((await (await t.request(`/api/v1/screen/presets/${preset.id}/run`, { method: 'POST', token })).json()) as any).stocks;
    expect(ran).toEqual((await items(query)).stocks);
    expect(ran[0]).toEqual(expect.objectContaining({ ey: expect.any(Number), score: expect.any(Number) }));
    const bad = await t.request('/api/v1/screen/presets', { method: 'POST', token, json: { name: 'bad', query: { columns: { per: '1' } } } });
    expect(bad.status).toBe(400);
  });

  it('runs the multi-factor templates, sortable by their score', async () => {
    for (const id of ['value-composite', 'quality-value', 'momentum-quality', 'sector-leaders']) {
      const res = await t.request(`/api/v1/screen/templates/${id}`, { method: 'POST', token, json: { sort: 'score:asc', market: 'ALL' } });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body.error)).toBe(200);
      const scores = body.stocks.map((s: any) => s.score).filter((v: unknown) => v !== null);
      expect(scores).toEqual([...scores].sort((a: number, b: number) => a - b));
      expect(body.meta.columns.at(-1).name).toBe('score');
    }
  });

  it('documents the functions in GET /screen/fields', async () => {
    const body = (await (await t.request('/api/v1/screen/fields', { token })).json()) as any;
    expect(body.meta.functions.map((f: any) => f.name)).toEqual(expect.arrayContaining(['log', 'sqrt', 'coalesce', 'rank', 'rank_asc', 'pct_rank', 'zscore']));
    expect(body.meta.language).toMatchObject({ by: ['sector', 'industry', 'market'], max_columns: 20 });
    // One percentile convention, stated once and naming everything that uses it
    const { percentile } = body.meta.language;
    expect(percentile.convention).toMatch(/100 × average ascending rank \/ n/);
    expect(percentile.convention).toMatch(/smallest 100 \/ n/);
    expect(percentile.used_by).toEqual(expect.arrayContaining(['pct_rank', 'score', 'value_score', 'quality_score', 'growth_score', 'momentum_score']));
    expect(body.meta.functions.find((f: any) => f.name === 'pct_rank').description).toContain(percentile.convention);
    for (const id of ['value_score', 'quality_score', 'growth_score', 'momentum_score']) {
      expect(body.data.find((f: any) => f.id === id).definition).toContain('the scale of pct_rank');
    }
  });

  it('stores the composite scores on pct_rank\'s scale: quality_score equals an independent pandas computation, and pct_rank of one component matches its share', async () => {
    // Given every stock with the quality components (the scores are ranked over the whole market)
    const components = ['roe', 'roa', 'operating_margin', 'piotroski_f_score', 'debt_ratio'];
    const { body, stocks } = await items({ columns: { p_roe: 'pct_rank(roe)' }, fields: [...components, 'quality_score'], per_page: 500 });
    expect(stocks.length).toBe(body.meta.total);
    expect(stocks.filter((s) => s.quality_score !== null).length).toBeGreaterThan(20);
    // When each component is ranked the pandas way (a lower debt ratio is better), averaged over
    // at least three present components and the means ranked again
    const pct = (field: string, sign = 1) => refPctRank(stocks.map((s) => ({ key: s.code, value: s[field] === null ? null : sign * s[field] })), false);
    const ranked = components.map((c) => pct(c, c === 'debt_ratio' ? -1 : 1));
    const means = stocks.map((s) => {
      const present = ranked.map((r) => r.get(s.code)).filter((v): v is number => v !== null && v !== undefined);
      return { key: s.code, value: present.length >= 3 ? present.reduce((a, b) => a + b, 0) / present.length : null };
    });
    // Then the daemon's quality_score is that percentile, and pct_rank(roe) the roe component's
    expectMatches(stocks, 'quality_score', refPctRank(means, false));
    expectMatches(stocks, 'p_roe', ranked[0]!);
    // (the lowest quality gets 100 / n, never 0)
    const scored = stocks.filter((s) => s.quality_score !== null);
    expect(Math.min(...scored.map((s) => s.quality_score))).toBeCloseTo(100 / scored.length, 9);
  });

  it('answers bad language input with 400, the path, the position and suggestions', async () => {
    const res = await screen({ columns: { a: 'pct_rnk(roe)' } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.details['columns.a']).toMatch(/unknown function 'pct_rnk'/);
    expect(body.error.details.position).toBe(0);
    expect(body.error.details.suggestions).toContain('pct_rank');
    const later = (await (await screen({ columns: { a: 'b * 2', b: 'roe' } })).json()) as any;
    expect(later.error.details['columns.a']).toMatch(/defined after it/);
  });
});
