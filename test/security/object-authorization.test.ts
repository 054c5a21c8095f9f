/**
 * Object-level authorisation across every resource with ids: another user's preset,
 * alert (price or screen), alert events, holding (and transactions, which are only listed) is a
 * 404 for every method, exactly like an id that does not exist, and never changes — and so are
 * another user's notification channel, delivery and digest schedule; a screen alert on another
 * user's preset, or an alert or schedule naming another user's channel, is refused (400) like an unknown one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODES, expectError, startSecurityDaemon, type SecurityDaemon } from './harness.js';

describe('object-level authorisation', () => {
  let s: SecurityDaemon;
  let owner: { access_token: string };
  let other: { access_token: string };
  const ids: Record<'preset' | 'alert' | 'screenAlert' | 'holding' | 'channel' | 'delivery' | 'schedule', string> = { preset: '', alert: '', screenAlert: '', holding: '', channel: '', delivery: '', schedule: '' };
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
    // A Telegram channel needs no reachable address to be made; its test message (to the unreachable default API) is a dead delivery in the log.
    ids.channel = (await data(await call('POST', '/channels', owner.access_token, { type: 'telegram', name: 'phone', bot_token: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chat_id: '42' }))).id;
    ids.delivery = (await data(await call('POST', `/channels/${ids.channel}/test`, owner.access_token))).id;
    ids.schedule = (await data(await call('POST', '/schedules', owner.access_token, { preset_id: ids.preset, at: '15:40', channels: [ids.channel] }))).id;
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
    ['GET', `/channels/${ids.channel}`],
    ['PATCH', `/channels/${ids.channel}`, { name: 'stolen' }],
    ['POST', `/channels/${ids.channel}/test`],
    ['DELETE', `/channels/${ids.channel}`],
    ['GET', `/deliveries/${ids.delivery}`],
    ['POST', `/deliveries/${ids.delivery}/redeliver`],
    ['GET', `/schedules/${ids.schedule}`],
    ['DELETE', `/schedules/${ids.schedule}`],
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
    expect((await data(await call('GET', `/channels/${ids.channel}`, owner.access_token))).name).toBe('phone');
    expect((await data(await call('GET', `/schedules/${ids.schedule}`, owner.access_token))).channels).toEqual([ids.channel]);
    for (const path of ['/screen/presets', '/alerts', '/alerts/events', '/portfolio/transactions', '/channels', '/deliveries', '/schedules']) {
      expect(await data(await call('GET', path, other.access_token)), path).toEqual([]);
    }
    expect((await data(await call('GET', '/portfolio', other.access_token))).holdings).toEqual([]);
    expect(await data(await call('GET', '/portfolio/transactions', owner.access_token))).toHaveLength(1);
  });

  it("refuses an alert or a schedule naming another user's channel as an unknown one (400), and creates nothing", async () => {
    for (const channel of [ids.channel, crypto.randomUUID()]) {
      const res = await call('POST', '/alerts', other.access_token, { code: CODES[0], alert_type: 'price_above', threshold: 20_000, channels: [channel] });
      expect((await expectError(res, 400, 'INVALID_REQUEST')).error.details).toEqual({ 'channels.0': 'no channel of yours has this id' });
    }
    const preset = (await data(await call('POST', '/screen/presets', other.access_token, { name: 'theirs', query: {} }))).id;
    const res = await call('POST', '/schedules', other.access_token, { preset_id: preset, at: '15:40', channels: [ids.channel] });
    expect((await expectError(res, 400, 'INVALID_REQUEST')).error.details).toEqual({ 'channels.0': 'no channel of yours has this id' });
    expect(await data(await call('GET', '/alerts', other.access_token))).toEqual([]);
    expect(await data(await call('GET', '/schedules', other.access_token))).toEqual([]);
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
