/**
 * Monitoring routes of the gateway, mounted by the app
 * under /api/v1 and /v1: `GET /ws/stats` (any signed-in user, like every /v1 endpoint: the
 * spec's fields at the top level of the body and again inside the envelope's `data`;
 * aggregate figures only, nothing per user or per connection) and `GET /ws/connections`
 * (admin; this instance's connections).
 */
import { z } from 'zod';
import { WsStats } from '../contract/ws.js';
import type { ApiBuilder } from '../http/api.js';
import { sendSuccess } from '../http/envelope.js';
import type { WsGateway } from './gateway.js';

const subscriptionMap = z.object({ stock: z.array(z.string()), market: z.array(z.string()), sector: z.array(z.string()) });
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
      response: WsStats,
    },
    async (req, res) => {
      const stats = await deps.gateway.stats();
      sendSuccess<WsStats>(req, res, stats, { top: { ...stats } });
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
