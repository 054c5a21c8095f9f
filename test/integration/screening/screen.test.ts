import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScreenBody, ScreenField, ScreenTemplate } from '../../../daemon/contract/screening.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('screening over a sample market', () => {
  let t: TestDaemon;
  let token: string;
  let other: string;
  const screen = (json: unknown, path = '/api/v1/screen', tok = token, headers: Record<string, string> = {}) =>
    t.request(path, { method: 'POST', json, token: tok, headers });

  beforeAll(async () => {
    t = await startTestDaemon('screen', { workers: 1, admin_email: 'ops@example.com', admin_password: 'ops-password-1' });
    const login = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: 'ops@example.com', password: 'ops-password-1' } });
    const admin = ((await login.json()) as any).access_token;
    const job = await t.request('/api/v1/admin/jobs', { method: 'POST', token: admin, json: { type: 'load-sample', seed: 11, stocks: 150, days: 300 } });
    await waitForJob(t.daemon, ((await job.json()) as any).data.id);
    token = (await t.login()).access_token;
    other = (await t.login()).access_token;
  }, 120_000);
  afterAll(() => t.close());

  it('answers {} with every stock, 50 per page, in both response shapes', async () => {
    const res = await screen({});
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.status).toBe('success');
    expect(body.data).toHaveLength(50);
    expect(body.stocks).toEqual(body.data);
    expect(body.meta).toMatchObject({ total: 150, page: 1, per_page: 50, total_pages: 3 });
    expect(body.filters_applied).toEqual({ market: 'ALL', _count: 0 });
    expect(typeof body.query_time_ms).toBe('number');
    expect(body.data[0]).toEqual(expect.objectContaining({ code: expect.any(String), name: expect.any(String), market: expect.any(String) }));
  });

  it('gives the same answer for shape A and shape B of one query, and filters inclusively', async () => {
    const a = (await (await screen({ filters: { market: 'KOSPI', roe: { min: 5 }, per: { max: 30 } }, sort: [{ field: 'roe', direction: 'desc' }], limit: 100 })).json()) as any;
    const b = (await (await screen({ market: 'KOSPI', min_roe: 5, max_per: 30, sort_by: 'roe', order: 'desc', limit: 100 })).json()) as any;
    expect(a.meta.total).toBeGreaterThan(0);
    expect(b.stocks.map((s: any) => s.code)).toEqual(a.stocks.map((s: any) => s.code));
    for (const s of a.stocks) {
      expect(s.market).toBe('KOSPI');
      expect(s.roe).toBeGreaterThanOrEqual(5);
      expect(s.per).toBeLessThanOrEqual(30);
    }
    const roes = a.stocks.map((s: any) => s.roe);
    expect(roes).toEqual([...roes].sort((x: number, y: number) => y - x));
    expect(a.filters_applied).toMatchObject({ market: 'KOSPI', _count: 3 });
    // Inclusive boundary: a min equal to the top value still returns that stock.
    const top = (await (await screen({ min_roe: roes[0], market: 'KOSPI' })).json()) as any;
    expect(top.stocks.map((s: any) => s.code)).toContain(a.stocks[0].code);
  });

  it('answers the identical request from the cache the second time (X-Cache)', async () => {
    const q = { filters: { market: 'KOSDAQ', pbr: { max: 3 } }, limit: 7 };
    const first = await screen(q);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const second = await screen({ limit: 7, filters: { pbr: { max: 3 }, market: 'KOSDAQ' } }, '/v1/screening');
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(((await second.json()) as any).stocks).toEqual(((await first.json()) as any).stocks);
  });

  it('evaluates expressions with field-vs-field comparisons', async () => {
    const res = (await (await screen({ expression: 'close > sma_20 and (per < 15 or pbr < 1.5)', fields: ['sma_20', 'pbr'], limit: 500 })).json()) as any;
    for (const s of res.stocks) {
      expect(s.close).toBeGreaterThan(s.sma_20);
      expect(s.per < 15 || s.pbr < 1.5).toBe(true);
    }
  });

  it('rejects bad input with 400 and field details, never a 500', async () => {
    const cases: [unknown, string][] = [
      [{ min_nonsense: 1 }, 'min_nonsense'],
      [{ filters: { per: { min: 10, max: 5 } } }, 'filters.per'],
      [{ sort: [{ field: 'nope', direction: 'desc' }] }, 'sort[0].field'],
      [{ per_page: 501 }, 'per_page'],
      [{ expression: 'roe > ' }, 'expression'],
      [{ market: 'NYSE' }, 'market'],
    ];
    for (const [body, field] of cases) {
      const res = await screen(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = ((await res.json()) as any).error;
      expect(err.code).toBe('INVALID_REQUEST');
      expect(Object.keys(err.details).some((k) => k.startsWith(field)), `${JSON.stringify(body)} → ${JSON.stringify(err.details)}`).toBe(true);
    }
  });

  it('streams all matches as CSV with a header row', async () => {
    const res = await screen({ market: 'KOSPI', per_page: 5 }, '/api/v1/screen', token, { accept: 'text/csv' });
    expect(res.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = (await res.text()).trim().split(/\r\n/);
    expect(lines[0]).toMatch(/^code,name,market,sector/);
    const total = Number(res.headers.get('x-total-count'));
    expect(lines).toHaveLength(total + 1); // every match, not one page of 5
    expect(total).toBeGreaterThan(5);
  });

  it('lists templates and runs one, with market override and paging', async () => {
    const list = (await (await t.request('/api/v1/screen/templates', { token })).json()) as any;
    expect(list.data.length).toBeGreaterThanOrEqual(12);
    expect(list.data[0]).toEqual(expect.objectContaining({ id: expect.any(String), name_ko: expect.any(String), name_en: expect.any(String) }));
    const run = await t.request('/api/v1/screen/templates/value', { method: 'POST', token, json: { market: 'KOSDAQ' } });
    expect(run.status).toBe(200);
    const body = (await run.json()) as any;
    expect(body.stocks.every((s: any) => s.market === 'KOSDAQ')).toBe(true);
    expect((await t.request('/api/v1/screen/templates/no-such', { method: 'POST', token, json: {} })).status).toBe(404);
  });

  it('keeps presets per user: CRUD, duplicate names, 404 for another user, run', async () => {
    const created = await t.request('/api/v1/screen/presets', { method: 'POST', token, json: { name: 'cheap', query: { max_per: 10 } } });
    expect(created.status).toBe(201);
    const preset = ((await created.json()) as any).data;
    expect((await t.request('/api/v1/screen/presets', { method: 'POST', token, json: { name: 'cheap', query: {} } })).status).toBe(409);
    const bad = await t.request('/api/v1/screen/presets', { method: 'POST', token, json: { name: 'broken', query: { min_bogus: 1 } } });
    expect(bad.status).toBe(400);
    expect(Object.keys(((await bad.json()) as any).error.details)[0]).toMatch(/^query\./);
    expect((await t.request(`/api/v1/screen/presets/${preset.id}`, { token: other })).status).toBe(404);
    expect((await t.request(`/api/v1/screen/presets/${preset.id}`, { method: 'DELETE', token: other })).status).toBe(404);
    const ran = (await (await t.request(`/api/v1/screen/presets/${preset.id}/run`, { method: 'POST', token })).json()) as any;
    expect(ran.stocks.every((s: any) => s.per <= 10)).toBe(true);
    const renamed = await t.request(`/api/v1/screen/presets/${preset.id}`, { method: 'PUT', token, json: { name: 'cheaper' } });
    expect(((await renamed.json()) as any).data.name).toBe('cheaper');
    expect((await t.request(`/api/v1/screen/presets/${preset.id}`, { method: 'DELETE', token })).status).toBe(204);
    expect(((await (await t.request('/api/v1/screen/presets', { token })).json()) as any).data).toEqual([]);
  });

  it('runs a template with sort and page overrides, and rejects a bad override with 400', async () => {
    // Given the quality template's first ten matches ordered by ROE ascending
    const path = '/api/v1/screen/templates/quality';
    const first = (await (await screen({ sort: [{ field: 'roe', direction: 'asc' }], per_page: 10 }, path)).json()) as any;
    expect(first.meta.total).toBeGreaterThan(10);
    const roes = first.stocks.map((s: any) => s.roe);
    expect(roes).toEqual([...roes].sort((a: number, b: number) => a - b));
    // When page 2 of 5 is asked for with the same sort (and with the sort_by/order shorthand)
    const second = (await (await screen({ sort: [{ field: 'roe', direction: 'asc' }], per_page: 5, page: 2 }, path)).json()) as any;
    const shorthand = (await (await screen({ sort_by: 'roe', order: 'asc', limit: 5, page: 2 }, path)).json()) as any;
    // Then it is items 6–10 of the same order, and the template's own filters still apply
    expect(second.stocks.map((s: any) => s.code)).toEqual(first.stocks.slice(5, 10).map((s: any) => s.code));
    expect(shorthand.stocks.map((s: any) => s.code)).toEqual(second.stocks.map((s: any) => s.code));
    expect(second.meta).toMatchObject({ page: 2, per_page: 5, total: first.meta.total });
    expect(second.stocks.every((s: any) => s.piotroski_f_score >= 7 && s.quality_score >= 70)).toBe(true);
    // And an unknown sort field or a filter (not overridable) is a 400 naming the field
    const bad = await screen({ sort: [{ field: 'nope' }] }, path);
    expect(bad.status).toBe(400);
    expect(Object.keys(((await bad.json()) as any).error.details)).toContain('sort[0].field');
    const filter = await screen({ min_per: 3 }, path);
    expect(filter.status).toBe(400);
    expect(Object.keys(((await filter.json()) as any).error.details)).toContain('min_per');
  });

  it('shares the result cache between a template run and the same query sent to /screen', async () => {
    // Given the momentum template's query as listed by GET /screen/templates
    const list = (await (await t.request('/api/v1/screen/templates', { token })).json()) as any;
    const momentum = list.data.find((tpl: any) => tpl.id === 'momentum');
    const body = {
      exclude: momentum.query.universe.exclude,
      filters: Object.fromEntries(momentum.query.filters.map((f: any) => [f.field, { min: f.min, max: f.max }])),
      expression: momentum.query.expression,
      sort: momentum.query.sort,
    };
    // When the template runs, then /screen gets the equivalent body
    const run = await screen({}, '/api/v1/screen/templates/momentum');
    const direct = await screen(body);
    // Then the second is answered from the first one's cache entry, with the same stocks
    expect(run.headers.get('x-cache')).toBe('MISS');
    expect(direct.headers.get('x-cache')).toBe('HIT');
    expect(((await direct.json()) as any).stocks).toEqual(((await run.json()) as any).stocks);
  });

  it('restricts the universe to the given sectors (shape A and B)', async () => {
    // Given every stock's sector
    const everyone = (await (await screen({ per_page: 500 })).json()) as any;
    const sectors = [...new Set<string>(everyone.stocks.map((s: any) => s.sector))].sort().slice(0, 2);
    const expected = everyone.stocks.filter((s: any) => sectors.includes(s.sector)).map((s: any) => s.code).sort();
    expect(expected.length).toBeGreaterThan(0);
    // When screening with two sectors, at the top level and under filters
    const top = (await (await screen({ sectors, per_page: 500, sort: [{ field: 'code', direction: 'asc' }] })).json()) as any;
    const nested = (await (await screen({ filters: { sectors }, per_page: 500, sort: [{ field: 'code', direction: 'asc' }] })).json()) as any;
    // Then exactly the stocks of those sectors come back
    expect(top.stocks.map((s: any) => s.code)).toEqual(expected);
    expect(nested.stocks.map((s: any) => s.code)).toEqual(expected);
    expect(top.filters_applied.sectors).toEqual(sectors);
    // And an unknown sector matches nothing (not an error)
    const none = (await (await screen({ sectors: ['없는 업종'] })).json()) as any;
    expect(none.meta.total).toBe(0);
  });

  it('answers PUT with a duplicate name 409 and another user\'s preset 404, leaving it unchanged', async () => {
    // Given two presets of one user
    const make = async (name: string) =>
      ((await (await t.request('/api/v1/screen/presets', { method: 'POST', token, json: { name, query: { min_roe: 10 } } })).json()) as any).data;
    const alpha = await make('alpha');
    const beta = await make('beta');
    // When beta is renamed to alpha
    const dup = await t.request(`/api/v1/screen/presets/${beta.id}`, { method: 'PUT', token, json: { name: 'alpha' } });
    // Then 409 CONFLICT naming the field
    expect(dup.status).toBe(409);
    const err = ((await dup.json()) as any).error;
    expect(err.code).toBe('CONFLICT');
    expect(err.details).toHaveProperty('name');
    // When another user updates alpha
    const foreign = await t.request(`/api/v1/screen/presets/${alpha.id}`, { method: 'PUT', token: other, json: { name: 'mine now' } });
    // Then 404, and alpha is as it was
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as any).error.code).toBe('NOT_FOUND');
    const after = ((await (await t.request(`/api/v1/screen/presets/${alpha.id}`, { token })).json()) as any).data;
    expect(after).toMatchObject({ name: 'alpha', query: { min_roe: 10 } });
    expect(((await (await t.request(`/api/v1/screen/presets/${beta.id}`, { token })).json()) as any).data.name).toBe('beta');
    for (const p of [alpha, beta]) await t.request(`/api/v1/screen/presets/${p.id}`, { method: 'DELETE', token });
  });

  it('streams a large CSV whose rows match the JSON answer, and a template run as CSV', async () => {
    const json = (await (await screen({ per_page: 500, fields: ['roe', 'name_english'], sort: [{ field: 'code', direction: 'asc' }] })).json()) as any;
    const res = await screen({ fields: ['roe', 'name_english'], sort: [{ field: 'code', direction: 'asc' }], format: 'csv' });
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe('code,name,market,sector,close,change_percent,market_cap,roe,name_english');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(json.stocks.map((s: any) => s.code));
    const tpl = await t.request('/api/v1/screen/templates/quality?format=csv', { method: 'POST', json: {}, token });
    expect(tpl.headers.get('content-type')).toMatch(/text\/csv/);
    expect((await tpl.text()).trim().split('\r\n').length).toBe(Number(tpl.headers.get('x-total-count')) + 1);
  });

  it('pages a sort with ties and nulls exactly as the CSV export of every match orders it', async () => {
    // A JSON page is read off presorted orders; a CSV export sorts every match: both must agree
    // on every page, including pages that start inside a run of tied scores.
    const q = { filters: { market_cap: { min: 1 } }, expression: 'close > 0', sort: [{ field: 'piotroski_f_score', direction: 'desc' }, { field: 'per', direction: 'asc' }], fields: ['piotroski_f_score', 'per'] };
    const csv = await screen({ ...q, format: 'csv' });
    const exported = (await csv.text()).trim().split('\r\n').slice(1).map((l) => l.split(',')[0]);
    const total = Number(csv.headers.get('x-total-count'));
    expect(exported).toHaveLength(total);
    const paged: string[] = [];
    let scores: (number | null)[] = [];
    for (let page = 1; page <= Math.ceil(total / 7) + 1; page++) {
      const body = (await (await screen({ ...q, per_page: 7, page })).json()) as any;
      expect(body.meta.total).toBe(total);
      paged.push(...body.stocks.map((s: any) => s.code));
      scores = [...scores, ...body.stocks.map((s: any) => s.piotroski_f_score)];
    }
    expect(paged).toEqual(exported);
    // Ties occur (scores are 0–9), and a page boundary falls inside a run of them.
    expect(new Set(scores).size).toBeLessThan(total / 5);
    expect(scores.some((v, i) => i % 7 === 0 && i > 0 && scores[i - 1] === v)).toBe(true);
  });

  it('lists every screenable field from the registry', async () => {
    const res = (await (await t.request('/api/v1/screen/fields', { token })).json()) as any;
    expect(res.data.length).toBeGreaterThanOrEqual(70);
    const per = res.data.find((f: any) => f.id === 'per');
    expect(per).toMatchObject({ label_ko: expect.any(String), unit: expect.any(String), category: 'valuation' });
  });

  it('answers in the shapes the wire contract declares, with no field it does not declare', async () => {
    const declared = (schema: { shape: object }, value: object) => expect(Object.keys(value).filter((k) => !(k in schema.shape))).toEqual([]);
    for (const query of [{ sort: [{ field: 'roe', direction: 'desc' }], limit: 5 }, { min_roe: 1e9 }]) {
      const body = ScreenBody.parse(await (await screen(query)).json());
      declared(ScreenBody, body);
      declared(ScreenBody.shape.meta, body.meta);
      if (body.meta.total === 0) expect(body.meta.explain?.steps.length).toBeGreaterThan(0);
    }
    const fields = z.array(ScreenField).parse(((await (await t.request('/api/v1/screen/fields', { token })).json()) as any).data);
    expect(fields.find((f) => f.id === 'roe')?.coverage).toBeGreaterThan(0);
    const templates = z.array(ScreenTemplate).parse(((await (await t.request('/api/v1/screen/templates', { token })).json()) as any).data);
    expect(templates.length).toBeGreaterThan(0);
  });
});

describe('screening with no data loaded', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('screen-empty');
  });
  afterAll(() => t.close());

  it('answers an empty stocks list with total 0 (spec rule 9)', async () => {
    const { access_token } = await t.login();
    const res = await t.request('/api/v1/screen', { method: 'POST', json: {}, token: access_token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.stocks).toEqual([]);
    expect(body.meta.total).toBe(0);
  });
});
