/**
 * Object-level authorisation across every resource with ids: another user's preset,
 * alert (price or screen), alert events, holding (and transactions, which are only listed) is a
 * 404 for every method, exactly like an id that does not exist, and never changes; a screen
 * alert on another user's preset is refused (400, details.preset_id) like one on an unknown preset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODES, expectError, startSecurityDaemon, type SecurityDaemon } from './harness.js';

describe('object-level authorisation', () => {
  let s: SecurityDaemon;
  let owner: { access_token: string };
  let other: { access_token: string };
  const ids: Record<'preset' | 'alert' | 'screenAlert' | 'holding', string> = { preset: '', alert: '', screenAlert: '', holding: '' };
  const call = (method: string, path: string, token: string, json?: unknown) => s.t.request(`/api/v1${path}`, { method, token, json });
  const data = async (res: Response) => ((await res.json()) as any).data;

  beforeAll(async () => {
    s = await startSecurityDaemon('sec-idor');
    owner = await s.t.login();
    other = await s.t.login();
    ids.preset = (await data(await call('POST', '/screen/presets', owner.access_token, { name: 'mine', query: { market: 'KOSPI' } }))).id;
    ids.alert = (await data(await call('POST', '/alerts', owner.access_token, { code: CODES[0], alert_type: 'price_above', threshold: 20_000 }))).id;
    ids.screenAlert = (await data(await call('POST', '/alerts', owner.access_token, { preset_id: ids.preset, alert_type: 'screen_enter' }))).id;
    ids.holding = (await data(await call('POST', '/portfolio/holdings', owner.access_token, { code: CODES[0], quantity: 10, average_price: 9_000, acquired_at: '2025-01-02' }))).id;
    expect((await call('POST', '/portfolio/transactions', owner.access_token, { code: CODES[1], side: 'buy', quantity: 3, price: 10_000, traded_at: '2025-01-03' })).status).toBe(201);
    for (const id of Object.values(ids)) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });
  afterAll(() => s?.t.close());

  const attempts = (): [string, string, unknown?][] => [
    ['GET', `/screen/presets/${ids.preset}`],
    ['PUT', `/screen/presets/${ids.preset}`, { name: 'stolen' }],
    ['POST', `/screen/presets/${ids.preset}/run`, {}],
    ['DELETE', `/screen/presets/${ids.preset}`],
    ['GET', `/alerts/${ids.alert}`],
    ['GET', `/alerts/${ids.alert}/events`],
    ['PUT', `/alerts/${ids.alert}`, { active: false }],
    ['DELETE', `/alerts/${ids.alert}`],
    ['GET', `/alerts/${ids.screenAlert}`],
    ['PUT', `/alerts/${ids.screenAlert}`, { active: false }],
    ['DELETE', `/alerts/${ids.screenAlert}`],
    ['GET', `/portfolio/holdings/${ids.holding}`],
    ['PUT', `/portfolio/holdings/${ids.holding}`, { quantity: 1 }],
    ['DELETE', `/portfolio/holdings/${ids.holding}`],
  ];

  it("answers 404 NOT_FOUND to every method on another user's objects, as for an unknown id", async () => {
    for (const [method, path, body] of attempts()) {
      await expectError(await call(method, path, other.access_token, body), 404, 'NOT_FOUND');
      const unknown = path.replace(/[0-9a-f-]{36}/, crypto.randomUUID());
      await expectError(await call(method, unknown, other.access_token, body), 404, 'NOT_FOUND');
    }
  });

  it("leaves the owner's objects unchanged and lists nothing of them to the other user", async () => {
    expect((await data(await call('GET', `/screen/presets/${ids.preset}`, owner.access_token))).name).toBe('mine');
    expect((await data(await call('GET', `/alerts/${ids.alert}`, owner.access_token))).active).toBe(true);
    expect(await data(await call('GET', `/alerts/${ids.screenAlert}`, owner.access_token))).toMatchObject({ active: true, preset_id: ids.preset });
    expect((await data(await call('GET', `/portfolio/holdings/${ids.holding}`, owner.access_token))).quantity).toBe(10);
    for (const path of ['/screen/presets', '/alerts', '/alerts/events', '/portfolio/transactions']) {
      expect(await data(await call('GET', path, other.access_token)), path).toEqual([]);
    }
    expect((await data(await call('GET', '/portfolio', other.access_token))).holdings).toEqual([]);
    expect(await data(await call('GET', '/portfolio/transactions', owner.access_token))).toHaveLength(1);
  });

  it("refuses a screen alert on another user's preset as on an unknown one, and creates nothing", async () => {
    for (const preset of [ids.preset, crypto.randomUUID()]) {
      const res = await call('POST', '/alerts', other.access_token, { preset_id: preset, alert_type: 'screen_exit', recurring: true });
      await expectError(res, 400, 'INVALID_REQUEST');
    }
    const res = await call('POST', '/alerts', other.access_token, { preset_id: ids.preset, alert_type: 'screen_enter' });
    expect(((await res.json()) as any).error.details).toEqual({ preset_id: 'no preset of yours has this id' });
    expect(await data(await call('GET', '/alerts', other.access_token))).toEqual([]);
  });

  it('refuses every object route without a token (401) and admin routes to users (403)', async () => {
    for (const [method, path, body] of attempts()) await expectError(await s.t.request(`/api/v1${path}`, { method, json: body }), 401, 'UNAUTHORIZED');
    await expectError(await call('GET', '/admin/users', other.access_token), 403, 'FORBIDDEN');
    await expectError(await call('GET', '/ws/connections', other.access_token), 403, 'FORBIDDEN');
    // What the market holds is for loaders (admins) only, like the jobs that load it
    await expectError(await s.t.request('/api/v1/admin/market'), 401, 'UNAUTHORIZED');
    await expectError(await call('GET', '/admin/market', other.access_token), 403, 'FORBIDDEN');
  });
});
