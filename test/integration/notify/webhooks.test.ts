/**
 * Webhook channels end to end, through a daemon built by createDaemon and a real local receiver
 * that verifies every request with the Standard Webhooks reference verifier: the signing secret
 * shown once; a firing delivered signed; a burst grouped into one message; retries on 5xx with
 * the same webhook-id; Retry-After honoured; a 4xx dead at once and redelivered; 410 switching the
 * channel off; retries ending dead at the deadline; the log's filters; /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type Receiver, type Reply, type WebhookReceived } from '../../helpers/notify-receivers.js';
import { CODES, QUICK_RETRIES, startNotifyDaemon, until, type NotifyDaemon } from './harness.js';

let d: NotifyDaemon;
let user: { access_token: string; id: string };
let other: { access_token: string; id: string };
/** Per receiver path: the secret to verify with, and how to answer. */
const secrets = new Map<string, string>();
const scripts = new Map<string, (n: number) => Reply>();
let receiver: Receiver<WebhookReceived>;
let price = 10_000;

const pathOf = (r: WebhookReceived) => r.path.split('?')[0]!;
const at = (path: string) => (r: WebhookReceived) => pathOf(r) === path;

/** A webhook channel at a fresh receiver path (answers by `script`, default 204) and its secret. */
async function webhook(name: string, script?: (n: number) => Reply): Promise<{ id: string; path: string; secret: string }> {
  const path = `/hook/${name}-${Math.random().toString(36).slice(2, 8)}`;
  if (script) scripts.set(path, script);
  const created = await d.call('POST', '/channels', user.access_token, { type: 'webhook', name, url: receiver.url + path }, 201);
  secrets.set(path, created.secret);
  return { id: created.id, path, secret: created.secret };
}

/** A price alert on `code` delivered to `channels`, and a tick that fires it. */
async function fire(code: string, channels: string[]): Promise<string> {
  const alert = await d.call('POST', '/alerts', user.access_token, { code, alert_type: 'price_above', threshold: price + 10, channels }, 201);
  price += 100;
  await d.tick([{ code, price }]);
  return alert.id;
}

const deliveries = (query = '') => d.call('GET', `/deliveries${query}`, user.access_token, undefined, 200);
const delivery = (id: string) => d.call('GET', `/deliveries/${id}`, user.access_token, undefined, 200);
const settled = (id: string, status: string) => until(`delivery ${id} ${status}`, async () => {
  const x = await delivery(id);
  return x.status === status ? x : undefined;
});

beforeAll(async () => {
  receiver = await startWebhookReceiver({
    secret: (path) => secrets.get(path),
    script: (_n, r) => {
      const path = pathOf(r);
      const count = receiver.received.filter(at(path)).length;
      return scripts.get(path)?.(count) ?? { status: 204 };
    },
  });
  d = await startNotifyDaemon('notify-webhooks', { ...QUICK_RETRIES, delivery_group_wait_ms: 1000, delivery_max_age_s: 5, channel_caps: { free: 20 } });
  user = await d.t.login();
  other = await d.t.login();
}, 60_000);
afterAll(async () => {
  await d?.close();
  await receiver?.close();
});

describe('webhook channels', () => {
  it('Given a new webhook channel, then its whsec_ secret is in the creation answer only', async () => {
    const hook = await webhook('secret-once');
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = JSON.stringify([await d.call('GET', `/channels/${hook.id}`, user.access_token, undefined, 200), await d.call('GET', '/channels', user.access_token, undefined, 200)]);
    expect(shown).not.toContain(hook.secret);
    expect(shown).not.toContain(hook.secret.slice(6));
    await d.call('GET', `/channels/${hook.id}`, other.access_token, undefined, 404);
  });

  it('When an alert with the channel fires, then the receiver gets one signed alert.fired whose webhook-id is the delivery id', async () => {
    const hook = await webhook('single');
    const alertId = await fire(CODES[0], [hook.id]);
    const [got] = await receiver.waitFor(1, at(hook.path));
    expect(got!.verified, got!.verifyError).toBe(true);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.json).toMatchObject({ type: 'alert.fired', data: { events: [{ alert_id: alertId, code: CODES[0], alert_type: 'price_above', current_price: price }] } });
    const [logged] = await deliveries(`?alert_id=${alertId}`);
    expect(logged.id).toBe(got!.headers['webhook-id']);
    expect(got!.json.data.delivery_id).toBe(logged.id);
    const done = await settled(logged.id, 'delivered');
    expect(done).toMatchObject({ channel_id: hook.id, kind: 'alert', alert_ids: [alertId], attempts: [{ n: 1, status_code: 204, error: null }] });
    // The alert answers its channels.
    expect((await d.call('GET', `/alerts/${alertId}`, user.access_token, undefined, 200)).channels).toEqual([hook.id]);
  });

  it('When three alerts of one channel fire within the group window, then one message lists every stock', async () => {
    const hook = await webhook('burst');
    const ids: string[] = [];
    for (const code of CODES.slice(1, 4)) ids.push((await d.call('POST', '/alerts', user.access_token, { code, alert_type: 'price_above', threshold: price + 10, channels: [hook.id] }, 201)).id);
    price += 100;
    await d.tick(CODES.slice(1, 4).map((code) => ({ code, price })));
    const [got] = await receiver.waitFor(1, at(hook.path));
    expect(got!.verified).toBe(true);
    expect(got!.json.data.events.map((e: any) => e.code).sort()).toEqual([...CODES.slice(1, 4)].sort());
    const logged = await deliveries(`?channel_id=${hook.id}`);
    expect(logged).toHaveLength(1);
    expect([...logged[0].alert_ids].sort()).toEqual([...ids].sort());
    expect(logged[0].text).toMatch(/3 alerts/);
    // Nothing else arrives for the channel: the delivery is finished with one attempt.
    expect((await settled(logged[0].id, 'delivered')).attempts).toHaveLength(1);
    expect(receiver.received.filter(at(hook.path))).toHaveLength(1);
  });

  it('When the receiver answers 503 twice, then the delivery is retried with the same webhook-id, each attempt signed, until delivered', async () => {
    const hook = await webhook('flaky', (n) => (n <= 2 ? { status: 503, body: 'busy' } : { status: 200, body: 'thanks' }));
    await fire(CODES[4], [hook.id]);
    const got = await receiver.waitFor(3, at(hook.path));
    expect(got.every((r) => r.verified)).toBe(true);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    const done = await settled(got[0]!.headers['webhook-id']!, 'delivered');
    expect(done.attempts.map((a: any) => [a.status_code, a.error])).toEqual([[503, 'HTTP 503: busy'], [503, 'HTTP 503: busy'], [200, null]]);
  });

  it('When the receiver answers 429 with Retry-After: 1, then the next attempt comes no sooner than a second later', async () => {
    const hook = await webhook('slow-down', (n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 }));
    await fire(CODES[5], [hook.id]);
    const [first, second] = await receiver.waitFor(2, at(hook.path));
    // A lower bound: being late cannot make it fail.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    expect((await settled(first!.headers['webhook-id']!, 'delivered')).attempts.map((a: any) => a.status_code)).toEqual([429, 204]);
  });

  it('When the receiver answers 400, then the delivery is dead at once; a redelivery sends the same id and body again', async () => {
    let refuse = true;
    const hook = await webhook('refuses', () => (refuse ? { status: 400, body: '{"error":"bad"}' } : { status: 204 }));
    const alertId = await fire(CODES[0], [hook.id]);
    const [first] = await receiver.waitFor(1, at(hook.path));
    const id = first!.headers['webhook-id']!;
    const dead = await settled(id, 'dead');
    expect(dead.attempts).toHaveLength(1);
    expect(dead.last_error).toContain('HTTP 400');
    expect((await deliveries('?status=dead')).map((x: any) => x.id)).toContain(id);
    expect((await deliveries('?status=failed')).map((x: any) => x.id)).toContain(id);
    expect((await deliveries(`?alert_id=${alertId}&status=delivered`))).toEqual([]);
    await d.call('POST', `/deliveries/${id}/redeliver`, other.access_token, undefined, 404);
    refuse = false;
    expect((await d.call('POST', `/deliveries/${id}/redeliver`, user.access_token, undefined, 202)).status).toBe('pending');
    const [, again] = await receiver.waitFor(2, at(hook.path));
    expect(again!.headers['webhook-id']).toBe(id);
    expect(again!.body).toBe(first!.body);
    expect(again!.verified).toBe(true);
    expect((await settled(id, 'delivered')).attempts.map((a: any) => a.status_code)).toEqual([400, 204]);
  });

  it('When the receiver answers 410 Gone, then the channel is switched off and later firings are dead without a request', async () => {
    const hook = await webhook('gone', () => ({ status: 410 }));
    await fire(CODES[1], [hook.id]);
    const [first] = await receiver.waitFor(1, at(hook.path));
    await settled(first!.headers['webhook-id']!, 'dead');
    const channel = await d.call('GET', `/channels/${hook.id}`, user.access_token, undefined, 200);
    expect(channel).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('410') });
    await fire(CODES[2], [hook.id]);
    const second = await until('a second delivery', async () => (await deliveries(`?channel_id=${hook.id}`)).find((x: any) => x.id !== first!.headers['webhook-id']));
    expect((await settled(second.id, 'dead')).last_error).toMatch(/channel disabled/);
    expect(receiver.received.filter(at(hook.path))).toHaveLength(1);
  });

  it('When the receiver keeps failing, then the delivery is dead once the next attempt would pass its deadline', async () => {
    const hook = await webhook('down', () => ({ status: 500 }));
    await fire(CODES[3], [hook.id]);
    const [first] = await receiver.waitFor(1, at(hook.path));
    const dead = await settled(first!.headers['webhook-id']!, 'dead');
    expect(dead.attempts.length).toBeGreaterThan(1);
    expect(dead.last_error).toMatch(/gave up/);
    expect(dead.attempts.every((a: any) => a.status_code === 500)).toBe(true);
  });

  it('When a screen alert with the channel fires (a stock enters the preset\'s live screen), then the firing is delivered like a price alert\'s', async () => {
    const hook = await webhook('screen');
    const preset = await d.call('POST', '/screen/presets', user.access_token, { name: 'above 12k', query: { expression: 'close > 12000' } }, 201);
    const alert = await d.call('POST', '/alerts', user.access_token, { preset_id: preset.id, alert_type: 'screen_enter', channels: [hook.id], dwell_s: 0 }, 201);
    expect(alert.channels).toEqual([hook.id]);
    await d.tick([{ code: CODES[0], price: 12_100 }]);
    const [got] = await receiver.waitFor(1, at(hook.path));
    expect(got!.verified).toBe(true);
    expect(got!.json.data.events).toEqual([expect.objectContaining({ alert_id: alert.id, alert_type: 'screen_enter', code: CODES[0], preset_id: preset.id, threshold: null })]);
    // Channels can be changed (here: none) and the alert answers them.
    expect((await d.call('PUT', `/alerts/${alert.id}`, user.access_token, { channels: [] }, 200)).channels).toEqual([]);
  });

  it('counts attempts by channel type and outcome in /metrics', async () => {
    const text = await (await d.t.request('/metrics')).text();
    for (const outcome of ['delivered', 'retrying', 'dead']) {
      expect(text).toMatch(new RegExp(`stockscreen_delivery_attempts_total\\{channel_type="webhook",outcome="${outcome}"\\} [1-9]`));
    }
  });

  it("Given another user's channel, then it can be neither read, changed, tested, deleted, nor chosen by an alert", async () => {
    const hook = await webhook('private');
    for (const [method, path, body] of [['GET', ''], ['PATCH', '', { name: 'x' }], ['POST', '/test'], ['DELETE', '']] as const) {
      await d.call(method, `/channels/${hook.id}${path}`, other.access_token, body, 404);
    }
    const res = await d.t.request('/api/v1/alerts', { method: 'POST', token: other.access_token, json: { code: CODES[0], alert_type: 'price_above', threshold: 99_000, channels: [hook.id] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details).toEqual({ 'channels.0': 'no channel of yours has this id' });
    expect(await d.call('GET', '/alerts', other.access_token, undefined, 200)).toEqual([]);
  });
});
