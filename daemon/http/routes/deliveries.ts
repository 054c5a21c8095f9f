/**
 * The delivery log: a user's deliveries (alert firings, digests, tests), each with its attempts
 * (time, the receiver's status code, the error), filtered by channel, alert and status; and
 * redelivery of a delivered or dead one (same id, same body). Another user's delivery is a 404.
 */
import { z } from 'zod';
import { CHANNEL_TYPES, DELIVERY_KINDS, DELIVERY_STATUSES, type Delivery } from '../../contract/notify.js';
import type { DeliveryService } from '../../notify/delivery-service.js';
import { deliveryView } from '../../notify/delivery-view.js';
import { notFound } from '../../errors.js';
import type { DeliveriesRepo } from '../../store/deliveries-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.uuid('must be a delivery id') });
const STATUS_FILTERS = [...DELIVERY_STATUSES, 'failed'] as const;
const listQuery = z.object({
  channel_id: z.uuid('must be a channel id').optional(),
  alert_id: z.uuid('must be an alert id').optional(),
  status: z.enum(STATUS_FILTERS, { error: `must be one of ${STATUS_FILTERS.join(', ')}` }).optional().describe('`failed`: retrying or dead'),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** A delivery in the OpenAPI document. */
export const deliverySchema = z
  .object({
    id: z.string().describe('Also the webhook-id header: the same on every attempt and redelivery'),
    channel_id: z.string(), channel_type: z.enum(CHANNEL_TYPES), kind: z.enum(DELIVERY_KINDS), status: z.enum(DELIVERY_STATUSES),
    alert_ids: z.array(z.string()), event_ids: z.array(z.string()).describe('The alert firings it carries (several when a burst was grouped)'),
    schedule_id: z.string().nullable(), text: z.string().nullable().describe('The message as chat and mail receivers read it'),
    attempts: z.array(z.object({ n: z.number(), at: z.string(), status_code: z.number().nullable(), error: z.string().nullable(), duration_ms: z.number() })),
    next_attempt_at: z.string().nullable(), created_at: z.string(), delivered_at: z.string().nullable(), last_error: z.string().nullable(),
  })
  .meta({ id: 'Delivery' });

/** Register the delivery log routes. */
export function registerDeliveryRoutes(api: ApiBuilder, deps: { deliveries: DeliveriesRepo; service: DeliveryService }): void {
  const tags = ['notifications'];
  api.route(
    { method: 'get', path: '/deliveries', summary: 'Your deliveries, newest first (filters: channel_id, alert_id, status)', tags, access: 'user', query: listQuery, response: z.array(deliverySchema) },
    async (req, res) => {
      const q = req.valid.query;
      const { items, total } = await deps.deliveries.list(req.user!.id, { channel_id: q.channel_id, alert_id: q.alert_id, status: q.status, limit: q.limit, offset: (q.page - 1) * q.limit });
      sendSuccess<Delivery[]>(req, res, items.map(deliveryView), { meta: { total, page: q.page, per_page: q.limit, total_pages: Math.ceil(total / q.limit) } });
    },
  );
  api.route(
    { method: 'get', path: '/deliveries/:id', summary: 'One delivery with its attempts', tags, access: 'user', params: idParams, response: deliverySchema, errors: [404] },
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
      params: idParams, response: deliverySchema, status: 202, errors: [404, 409],
      description: 'Answers 202 with the delivery, pending again. A delivery still under way (grouping, pending, sending, retrying) → 409.',
    },
    async (req, res) => {
      const { id } = req.valid.params;
      sendSuccess<Delivery>(req, res, deliveryView(await deps.service.redeliver(req.user!.id, id)), { status: 202 });
    },
  );
}
