/**
 * The delivery log: a user's deliveries (alert firings, digests, tests), each with its attempts
 * (time, the receiver's status code, the error), filtered by channel, alert and status; and
 * redelivery of a delivered or dead one (same id, same body). Another user's delivery is a 404.
 */
import { z } from 'zod';
import { Delivery, DeliveryListQuery } from '../../contract/notify.js';
import type { DeliveryService } from '../../notify/delivery-service.js';
import { deliveryView } from '../../notify/delivery-view.js';
import { notFound } from '../../errors.js';
import type { DeliveriesRepo } from '../../store/deliveries-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.uuid('must be a delivery id') });

/** Register the delivery log routes. */
export function registerDeliveryRoutes(api: ApiBuilder, deps: { deliveries: DeliveriesRepo; service: DeliveryService }): void {
  const tags = ['notifications'];
  api.route(
    { method: 'get', path: '/deliveries', summary: 'Your deliveries, newest first (filters: channel_id, alert_id, status)', tags, access: 'user', query: DeliveryListQuery, response: z.array(Delivery) },
    async (req, res) => {
      const q = req.valid.query;
      const { items, total } = await deps.deliveries.list(req.user!.id, { channel_id: q.channel_id, alert_id: q.alert_id, status: q.status, limit: q.limit, offset: (q.page - 1) * q.limit });
      sendSuccess<Delivery[]>(req, res, items.map(deliveryView), { meta: { total, page: q.page, per_page: q.limit, total_pages: Math.ceil(total / q.limit) } });
    },
  );
  api.route(
    { method: 'get', path: '/deliveries/:id', summary: 'One delivery with its attempts', tags, access: 'user', params: idParams, response: Delivery, errors: [404] },
    async (req, res) => {
      const { id } = req.valid.params;
      const entry = await deps.deliveries.entry(req.user!.id, id);
      if (!entry) throw notFound('Delivery', { id });
      sendSuccess<Delivery>(req, res, deliveryView(entry));
    },
  );
  api.route(
    {
      method: 'post', path: '/deliveries/:id/redeliver', summary: 'Send a delivered or dead delivery again (same id and body; retried like a new one)', tags, access: 'user',
      params: idParams, response: Delivery, status: 202, errors: [404, 409],
      description: 'Answers 202 with the delivery, pending again. A delivery still under way (grouping, pending, sending, retrying) → 409.',
    },
    async (req, res) => {
      const { id } = req.valid.params;
      sendSuccess<Delivery>(req, res, deliveryView(await deps.service.redeliver(req.user!.id, id)), { status: 202 });
    },
  );
}
