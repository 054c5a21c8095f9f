/**
 * Work left behind: a firing whose claim committed (its outbox items with it) on a daemon that
 * died before queueing their jobs is found by the delivery sweep once idle past its grace, and
 * delivered; work that is still fresh is left to its own job.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWebhookReceiver, type Receiver, type WebhookReceived } from '../../helpers/notify-receivers.js';
import { CODES, startNotifyDaemon, type NotifyDaemon } from './harness.js';

const clock = { offset: 0, now: () => Date.now() + clock.offset };
let d: NotifyDaemon;
let receiver: Receiver<WebhookReceived>;
let secret = '';

beforeAll(async () => {
  receiver = await startWebhookReceiver({ secret: () => secret });
  d = await startNotifyDaemon('notify-sweep', { delivery_group_wait_ms: 0 }, { clock });
}, 60_000);
afterAll(async () => {
  await d?.close();
  await receiver?.close();
});

it('Given a firing recorded without its jobs queued, when the sweep runs after its grace, then the firing is delivered', async () => {
  const user = await d.t.login();
  const hook = await d.call('POST', '/channels', user.access_token, { type: 'webhook', name: 'late', url: `${receiver.url}/late` }, 201);
  secret = hook.secret;
  const alert = await d.call('POST', '/alerts', user.access_token, { code: CODES[0], alert_type: 'price_above', threshold: 10_500, channels: [hook.id] }, 201);
  // The claim as the evaluator makes it (the outbox items are written in its transaction), but no job queued after it.
  const eventId = randomUUID();
  const recorded = await d.ctx.store.alerts.recordFiring({
    id: eventId, alert_id: alert.id, user_id: user.id, generation: 0, claim: '', code: CODES[0], alert_type: 'price_above', threshold: 10_500,
    price: 10_600, change_percent: 6, volume: 10, message: `Stock ${CODES[0]} (${CODES[0]}) price 10,600 reached 10,500 or above`, fired_at: clock.now(), preset_id: null,
  });
  expect(recorded).toBe(true);
  expect(await d.ctx.notify.deliveryService.sweep()).toEqual({ items: 0, deliveries: 0 });
  clock.offset += 5 * 60_000;
  expect(await d.ctx.notify.deliveryService.sweep()).toEqual({ items: 1, deliveries: 0 });
  const [got] = await receiver.waitFor(1);
  expect(got!.verified).toBe(true);
  expect(got!.json.data.events).toEqual([expect.objectContaining({ event_id: eventId, alert_id: alert.id })]);
});
