/**
 * Bounded input: every string, array and map of every request schema has a documented
 * maximum (read from the OpenAPI document, generated from the schemas that validate), and
 * the daemon enforces them; dates are real calendar dates in a sane range; passwords
 * follow the OWASP rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koreaToday } from '../../daemon/contract/fields.js';
import { CODES, expectError, startSecurityDaemon, type SecurityDaemon } from './harness.js';
import { unboundedRequestFields } from './openapi-walk.js';

describe('input limits', () => {
  let s: SecurityDaemon;
  let u: { access_token: string };
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-limits');
    u = await s.t.login();
  });
  afterAll(() => s?.t.close());

  const post = (path: string, json: unknown, token?: string) => s.t.request(`/api/v1${path}`, { method: 'POST', json, token });
  const details = async (res: Response, status = 400) => (await expectError(res, status, status === 400 ? 'INVALID_REQUEST' : undefined)).error.details;

  it('documents a maximum for every string, array and map of every request schema', async () => {
    const doc = (await (await s.t.request('/openapi.json')).json()) as Record<string, unknown>;
    const found = unboundedRequestFields(doc);
    expect(found.map((f) => `${f.route} ${f.field}: ${f.problem}`)).toEqual([]);
    // The walk does see what it checks: an unbounded string in a document of one route is found.
    const unbounded = { paths: { '/x': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } } } } } };
    expect(unboundedRequestFields(unbounded).length).toBeGreaterThan(0);
  });

  it('refuses oversized strings with a field-level 400', async () => {
    // A body past the route's limit never reaches validation: 413 from its Content-Length.
    const huge = await post('/auth/register', { email: `${'a'.repeat(900_000)}@example.com`, password: 'correct horse battery' });
    expect(huge.status).toBe(413);
    expect(Object.keys(await details(await post('/auth/register', { email: `${'a'.repeat(10_000)}@example.com`, password: 'correct horse battery' })))).toContain('email');
    expect((await details(await post('/auth/register', { email: `${'a'.repeat(250)}@example.com`, password: 'correct horse battery' }))).email).toMatch(/254/);
    expect((await details(await post('/auth/register', { email: 'n@example.com', password: 'correct horse battery', name: 'n'.repeat(101) }))).name).toMatch(/100/);
    expect((await details(await post('/auth/login', { email: 'n@example.com', password: 'p'.repeat(257) }))).password).toMatch(/256/);
    expect((await details(await post('/auth/refresh', { refresh_token: 'r'.repeat(513) }))).refresh_token).toBeDefined();
    const token = u.access_token;
    expect((await details(await post('/alerts', { code: CODES[0], alert_type: 'price_above', threshold: 1, note: 'x'.repeat(501) }, token)))['note']).toMatch(/500/);
    expect((await details(await post('/portfolio/holdings', { code: CODES[0], quantity: 1, average_price: 1, note: 'x'.repeat(501) }, token))).note).toMatch(/500/);
    expect((await details(await post('/screen/presets', { name: 'p'.repeat(101), query: {} }, token))).name).toMatch(/100/);
    expect((await details(await post('/screen/presets', { name: 'p', description: 'd'.repeat(1001), query: {} }, token))).description).toMatch(/1000/);
    expect((await details(await post('/alerts', { code: '0'.repeat(10_000), alert_type: 'price_above', threshold: 1 }, token))).code).toMatch(/6-character/);
  });

  it('refuses oversized names and expressions in a screening request with a field-level 400', async () => {
    const token = u.access_token;
    expect((await details(await post('/screen', { sectors: ['s'.repeat(101)] }, token)))['sectors[0]']).toMatch(/100/);
    expect((await details(await post('/screen', { expression: `per < ${'1'.repeat(2001)}` }, token))).expression).toMatch(/2000/);
    expect((await details(await post('/screen', { sort: [{ field: 'f'.repeat(101) }] }, token)))['sort[0].field']).toMatch(/100/);
  });

  it('refuses oversized arrays and maps', async () => {
    const keys = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`min_k${i}`, i]));
    expect((await details(await post('/screen/presets', { name: 'wide', query: keys }, u.access_token))).query).toMatch(/500/);
    const ticks = Array.from({ length: 1001 }, () => ({ code: CODES[0], price: 10_000, volume: 1 }));
    expect(Object.keys(await details(await post('/admin/ticks', { ticks }, s.adminToken)))).toContain('ticks');
    const paths = Array.from({ length: 10_001 }, () => 'x');
    expect(Object.keys(await details(await post('/admin/jobs', { type: 'load-files', paths }, s.adminToken)))).toContain('paths');
  });

  it('accepts only real calendar dates in range, and no trade or acquisition in the future', async () => {
    const token = u.access_token;
    const trade = (traded_at: unknown) => post('/portfolio/transactions', { code: CODES[0], side: 'buy', quantity: 1, price: 10_000, traded_at }, token);
    const tomorrow = new Date(Date.parse(`${koreaToday()}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    for (const bad of ['2026-02-31', '2025-02-29', '9999-12-31', '1899-12-31', tomorrow, '2025-13-01', '2025-1-2', '2025-01-02T25:00:00Z', '2025-01-02T10:00:00', `${tomorrow}T12:00:00+09:00`, 20250102, '']) {
      expect((await details(await trade(bad))).traded_at, String(bad)).toBeDefined();
    }
    expect((await trade('2024-02-29')).status).toBe(201);
    expect((await trade('2025-01-06T09:30:00+09:00')).status).toBe(201);
    expect((await details(await post('/portfolio/holdings', { code: CODES[0], quantity: 1, average_price: 1, acquired_at: tomorrow }, token))).acquired_at).toMatch(/future/);
    const history = await s.t.request(`/api/v1/stocks/${CODES[0]}/history?from=2025-02-30`, { token });
    expect((await details(history)).from).toBeDefined();
    expect((await details(await s.t.request(`/api/v1/stocks/${CODES[0]}/history?to=9999-01-01`, { token }))).to).toMatch(/2100/);
    const job = await post('/admin/jobs', { type: 'load-files', paths: [{ path: '/tmp/x.csv', date: '2025-02-30' }] }, s.adminToken);
    expect(Object.keys(await details(job)).join()).toMatch(/date/);
  });

  it('asks for passwords of at least 10 characters that are not common', async () => {
    const register = (password: string) => post('/auth/register', { email: `p-${crypto.randomUUID().slice(0, 8)}@example.com`, password });
    expect((await details(await register('12345678'))).password).toMatch(/at least 10/);
    expect((await details(await register('123456789'))).password).toMatch(/at least 10/);
    for (const common of ['1234567890', 'Password123', 'qwertyuiop']) expect((await details(await register(common))).password).toMatch(/common/);
    expect((await register('correct horse battery')).status).toBe(201);
  });
});
