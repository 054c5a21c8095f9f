/**
 * Alert endpoints: CRUD, validation with field details, per-tier caps (403), paging and
 * filters, ownership isolation between two users, and the firing history — served by the
 * real routes over a real sqlite, with the evaluator on a real Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_CAPS } from '../../../daemon/alerts/alert-service.js';
import { createManualClock } from '../../../daemon/infra/clock.js';
import type { TestServer, TestStore } from '../../helpers/portfolio-harness.js';
import { openAlertStore, redisPrefix, startInstance, tick, type AlertInstance } from './stack.js';

let store: TestStore;
let node: AlertInstance;
let server: TestServer;
const redis = redisPrefix('alert-routes');

beforeAll(async () => {
  store = await openAlertStore();
  // Small caps so the limits are reachable: free 2, basic 3.
  node = await startInstance(store.settings, { prefix: redis.prefix, clock: createManualClock(Date.parse('2025-03-04T01:00:00Z')), caps: { free: 2, basic: 3, pro: 1000, enterprise: null }, serve: store });
  server = node.server!;
});
afterAll(async () => {
  await node?.close();
  await redis.cleanup();
  await store?.close();
});

const create = (token: string, json: unknown) => server.request('/api/v1/alerts', { method: 'POST', token, json });

describe('alerts CRUD', () => {
  it('creates, reads, updates and deletes an alert', async () => {
    const { token } = await store.user('pro');
    const res = await create(token, { code: '005930', alert_type: 'price_above', threshold: 71000, note: 'breakout' });
    expect(res.status).toBe(201);
    const alert = res.body.data;
    expect(alert).toMatchObject({ code: '005930', name: 'Samsung Electronics', alert_type: 'price_above', threshold: 71000, recurring: false, cooldown_s: 0, note: 'breakout', active: true, armed: true, fire_count: 0, last_fired_at: null });
    expect(alert).not.toHaveProperty('user_id');

    expect((await server.request(`/api/v1/alerts/${alert.id}`, { token })).body.data).toEqual(alert);
    const put = await server.request(`/api/v1/alerts/${alert.id}`, { method: 'PUT', token, json: { threshold: 72000, recurring: true, cooldown_s: 300, note: null } });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ threshold: 72000, recurring: true, cooldown_s: 300, note: null, active: true });

    expect((await server.request(`/api/v1/alerts/${alert.id}`, { method: 'DELETE', token })).status).toBe(204);
    expect((await server.request(`/api/v1/alerts/${alert.id}`, { token })).status).toBe(404);
    expect((await server.request(`/api/v1/alerts/${alert.id}`, { method: 'DELETE', token })).status).toBe(404);
  });

  it('rejects bad alerts with field-level details', async () => {
    const { token } = await store.user('pro');
    const cases: [unknown, string, RegExp?][] = [
      [{ code: '005930', alert_type: 'price_sideways', threshold: 1 }, 'alert_type', /must be one of price_above/],
      [{ alert_type: 'price_above', threshold: 1 }, 'code'],
      [{ code: '999999', alert_type: 'price_above', threshold: 1 }, 'code', /no listed stock/],
      [{ code: '005930', alert_type: 'price_above', threshold: 0 }, 'threshold', /positive price for price_above/],
      [{ code: '005930', alert_type: 'price_below', threshold: -70000 }, 'threshold', /positive/],
      [{ code: '005930', alert_type: 'volume_above', threshold: 0 }, 'threshold', /positive multiple/],
      [{ code: '005930', alert_type: 'price_above' }, 'threshold'],
      [{ code: '005930', alert_type: 'price_above', threshold: 1, cooldown_s: -5 }, 'cooldown_s'],
      [{ code: '005930', alert_type: 'price_above', threshold: 1, when: 'now' }, 'when', /unknown field/],
    ];
    for (const [body, field, message] of cases) {
      const res = await create(token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details, JSON.stringify(body)).toHaveProperty(field);
      if (message) expect(res.body.error.details[field]).toMatch(message);
    }
    // A negative change threshold is fine for change_percent_below.
    expect((await create(token, { code: '005930', alert_type: 'change_percent_below', threshold: -5 })).status).toBe(201);
    const ok = (await create(token, { code: '005930', alert_type: 'price_above', threshold: 71000 })).body.data;
    const bad = await server.request(`/api/v1/alerts/${ok.id}`, { method: 'PUT', token, json: { threshold: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.threshold).toMatch(/positive price/);
    expect((await server.request(`/api/v1/alerts/${ok.id}`, { method: 'PUT', token, json: {} })).status).toBe(400);
    expect((await server.request('/api/v1/alerts')).status).toBe(401);
  });

  it('lists with filters and pages', async () => {
    const { token } = await store.user('pro');
    const made = [];
    for (const [code, alert_type, threshold] of [['005930', 'price_above', 71000], ['005930', 'price_below', 69000], ['000660', 'price_above', 210000], ['035720', 'volume_above', 2]] as const) {
      made.push((await create(token, { code, alert_type, threshold })).body.data);
    }
    await server.request(`/api/v1/alerts/${made[1].id}`, { method: 'PUT', token, json: { active: false } });
    const all = await server.request('/api/v1/alerts', { token });
    expect(all.body.meta).toMatchObject({ total: 4, page: 1, per_page: 50, total_pages: 1 });
    const ids = (path: string) => server.request(path, { token }).then((r) => r.body.data.map((a: any) => a.id).sort());
    expect(await ids('/api/v1/alerts?code=005930')).toEqual([made[0].id, made[1].id].sort());
    expect(await ids('/api/v1/alerts?active=false')).toEqual([made[1].id]);
    expect(await ids('/api/v1/alerts?type=price_above&active=true')).toEqual([made[0].id, made[2].id].sort());
    const page2 = await server.request('/api/v1/alerts?limit=3&page=2', { token });
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.meta).toMatchObject({ total: 4, page: 2, per_page: 3, total_pages: 2 });
    expect((await server.request('/api/v1/alerts?type=nope', { token })).body.error.details).toHaveProperty('type');
  });
});

describe('per-tier caps on active alerts', () => {
  it('answers 403 with the limit once a free user has 2 active alerts (test caps), counting only active ones', async () => {
    const { token } = await store.user('free');
    const a = (await create(token, { code: '005930', alert_type: 'price_above', threshold: 71000 })).body.data;
    expect((await create(token, { code: '005930', alert_type: 'price_below', threshold: 69000 })).status).toBe(201);
    const over = await create(token, { code: '000660', alert_type: 'price_above', threshold: 1 });
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe('FORBIDDEN');
    expect(over.body.error.message).toMatch(/free tier allows 2 active alerts/);
    expect(over.body.error.details).toEqual({ tier: 'free', limit: 2, active: 2 });

    // Deactivating one frees a slot; reactivating it while at the cap is refused.
    await server.request(`/api/v1/alerts/${a.id}`, { method: 'PUT', token, json: { active: false } });
    expect((await create(token, { code: '000660', alert_type: 'price_above', threshold: 1 })).status).toBe(201);
    const reactivate = await server.request(`/api/v1/alerts/${a.id}`, { method: 'PUT', token, json: { active: true } });
    expect(reactivate.status).toBe(403);
    expect((await server.request(`/api/v1/alerts/${a.id}`, { token })).body.data.active).toBe(false);
  });

  it('applies each tier its own cap', async () => {
    const { token } = await store.user('basic');
    for (let k = 0; k < 3; k++) expect((await create(token, { code: '005930', alert_type: 'price_above', threshold: 70000 + k })).status).toBe(201);
    expect((await create(token, { code: '005930', alert_type: 'price_above', threshold: 1 })).status).toBe(403);
  });

  it('defaults to the issue caps: free 10, basic 100, pro 1,000, enterprise unlimited', () => {
    expect(DEFAULT_ALERT_CAPS).toEqual({ free: 10, basic: 100, pro: 1000, enterprise: null });
  });
});

describe('ownership', () => {
  it("answers 404 for another user's alert and its history, and never lists it", async () => {
    const owner = await store.user('pro');
    const other = await store.user('pro');
    const alert = (await create(owner.token, { code: '035720', alert_type: 'price_above', threshold: 50000, note: 'private note' })).body.data;
    for (const [method, path, json] of [
      ['GET', `/api/v1/alerts/${alert.id}`, undefined],
      ['PUT', `/api/v1/alerts/${alert.id}`, { active: false }],
      ['DELETE', `/api/v1/alerts/${alert.id}`, undefined],
      ['GET', `/api/v1/alerts/${alert.id}/events`, undefined],
    ] as const) {
      const res = await server.request(path, { method, token: other.token, json });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('private note');
    }
    expect((await server.request('/api/v1/alerts', { token: other.token })).body.data).toEqual([]);
    expect((await server.request(`/api/v1/alerts/${alert.id}`, { token: owner.token })).body.data).toMatchObject({ active: true, note: 'private note' });
  });
});

describe('firing history', () => {
  it('lists the firings of one alert and of all alerts, with price and message, to the owner only', async () => {
    const owner = await store.user('pro');
    const other = await store.user('pro');
    const up = (await create(owner.token, { code: '000660', alert_type: 'price_above', threshold: 210000 })).body.data;
    const down = (await create(owner.token, { code: '000660', alert_type: 'price_below', threshold: 190000, recurring: true })).body.data;
    await node.evaluator.onTick([tick('000660', 211000)]);
    await node.evaluator.onTick([tick('000660', 189000)]);

    const one = await server.request(`/api/v1/alerts/${up.id}/events`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.data[0]).toMatchObject({ alert_id: up.id, code: '000660', alert_type: 'price_above', threshold: 210000, price: 211000, fired_at: '2025-03-04T01:00:00.000Z' });
    expect(one.body.data[0].message).toBe('SK hynix (000660) price 211,000 reached 210,000 or above');
    const all = await server.request('/api/v1/alerts/events?limit=1', { token: owner.token });
    expect(all.body.meta).toMatchObject({ total: 2, per_page: 1, total_pages: 2 });
    expect((await server.request(`/api/v1/alerts/${up.id}`, { token: owner.token })).body.data).toMatchObject({ active: false, fire_count: 1, last_fired_at: '2025-03-04T01:00:00.000Z' });
    expect((await server.request(`/api/v1/alerts/${down.id}`, { token: owner.token })).body.data).toMatchObject({ active: true, armed: false, fire_count: 1 });
    expect((await server.request('/api/v1/alerts/events', { token: other.token })).body.data).toEqual([]);

    // The history outlives the alert.
    await server.request(`/api/v1/alerts/${up.id}`, { method: 'DELETE', token: owner.token });
    expect((await server.request('/api/v1/alerts/events', { token: owner.token })).body.meta.total).toBe(2);
  });

  it('a write through the API takes effect on the next tick', async () => {
    const { token } = await store.user('pro');
    const alert = (await create(token, { code: '035720', alert_type: 'price_below', threshold: 40000 })).body.data;
    await server.request(`/api/v1/alerts/${alert.id}`, { method: 'PUT', token, json: { threshold: 30000 } });
    expect((await node.evaluator.onTick([tick('035720', 35000)])).filter((f) => f.alert_id === alert.id)).toEqual([]);
    expect((await node.evaluator.onTick([tick('035720', 30000)])).filter((f) => f.alert_id === alert.id)).toHaveLength(1);
  });
});
