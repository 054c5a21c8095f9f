/**
 * Monitoring routes of the gateway, mounted by the app
 * under /api/v1 and /v1: `GET /ws/stats` (any signed-in user, like every /v1 endpoint: the
 * spec's fields at the top level of the body and again inside the envelope's `data`;
 * aggregate figures only, nothing per user or per connection) and `GET /ws/connections`
 * (admin; this instance's connections).
 */
import { z } from 'zod';
import type { ApiBuilder } from '../http/api.js';
import { sendSuccess } from '../http/envelope.js';
import type { WsGateway } from './gateway.js';

const subscriptionMap = z.object({ stock: z.array(z.string()), market: z.array(z.string()), sector: z.array(z.string()) });
const latency = z.object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable(), max: z.number().nullable(), samples: z.number().int() });

const statsSchema = z
  .object({
    active_connections: z.number().int(),
    total_subscriptions: z.number().int(),
    subscriptions_by_type: z.object({ stock: z.number().int(), market: z.number().int(), sector: z.number().int() }),
    messages_sent: z.number().int(),
    saved_sessions: z.number().int().nullable().describe('Saved sessions in Redis (all instances); null when Redis is unreachable'),
    batching_enabled: z.boolean(),
    batch_interval_ms: z.number().int(),
    queued_messages: z.number().int(),
    rate_limiting_enabled: z.boolean(),
    rate_limit: z.number().int(),
    frames_sent: z.number().int(),
    messages_per_second: z.number().describe('Delivered messages per second over the last 10 s'),
    send_latency_ms: latency.describe('Message age when its frame is handed to the socket (last 2048 flushes)'),
    memory: z.object({ rss: z.number(), heap_used: z.number(), heap_total: z.number(), external: z.number(), array_buffers: z.number() }),
    bytes_per_connection: z.number().nullable().describe('Mean per connection of its socket send buffer plus its session state as saved (bytes); null without connections'),
    topics: z.number().int(),
    compression: z
      .object({ contexts: z.number().int(), busy: z.number().int(), queued: z.number().int() })
      .nullable()
      .describe('Shared per-message-deflate contexts; null when compression is off'),
  })
  .meta({ id: 'WsStats' });

const connectionSchema = z
  .object({
    connection_id: z.string().uuid(),
    session_id: z.string().uuid(),
    user_id: z.string().nullable(),
    connected_at: z.string(),
    subscriptions: subscriptionMap,
    message_count: z.number().int().describe('Server messages delivered to the connection'),
    messages_received: z.number().int(),
    queued_messages: z.number().int(),
    last_activity: z.string().describe('Last client message (or the connection time)'),
  })
  .meta({ id: 'WsConnection' });

/** Register GET /ws/stats and GET /ws/connections. */
export function registerWsRoutes(api: ApiBuilder, deps: { gateway: WsGateway }): void {
  api.route(
    {
      method: 'get',
      path: '/ws/stats',
      summary: 'WebSocket gateway statistics',
      description:
        'Needs a token (any user). Fields are at the top level of the body and also inside `data`. Connection figures are those of the instance answering; ' +
        'all figures are aggregates (per-connection detail is GET /ws/connections, admins only).',
      tags: ['websocket'],
      access: 'user',
      rateLimitExempt: true,
      response: statsSchema,
    },
    async (req, res) => {
      const stats = await deps.gateway.stats();
      sendSuccess(req, res, stats, { top: { ...stats } });
    },
  );
  api.route(
    { method: 'get', path: '/ws/connections', summary: 'Open WebSocket connections of this instance', tags: ['websocket', 'admin'], access: 'admin', response: z.array(connectionSchema) },
    (req, res) => {
      const list = deps.gateway.connections();
      sendSuccess(req, res, list, { meta: { total: list.length } });
    },
  );
}
