/** Admin tick ingest: `POST /admin/ticks` drives the live feed from a real source. */
import { z } from 'zod';
import { MAX_TICKS_PER_BATCH, tickBodySchema, type TickBody } from '../../market/feed/ingest.js';
import type { PriceFeed } from '../../market/feed/feed.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

const acceptedSchema = z.object({ accepted: z.number().int().describe('Ticks applied') });

/** Register POST /admin/ticks. */
export function registerAdminTickRoutes(api: ApiBuilder, deps: { feed: Pick<PriceFeed, 'ingest'> }): void {
  api.route(
    {
      method: 'post',
      path: '/admin/ticks',
      summary: `Ingest real-feed ticks: one tick or a batch of up to ${MAX_TICKS_PER_BATCH.toLocaleString('en-US')}`,
      description:
        'Each tick updates the live quote (GET /stocks/{code}/price), runs alert evaluation and is pushed to WebSocket subscribers on every daemon. ' +
        '`volume` is the day\'s cumulative volume. A price must lie on the KRX tick grid (off-grid prices are rejected, not rounded) and within ±30% of the previous close; ' +
        'the day volume must not decrease. A batch is all or nothing: a 400 lists every problem by tick (`ticks[3].price`). ' +
        '503 when the daemon runs with --feed off or Redis is unavailable. The same bodies can be appended to the `<prefix>ticks:in` Redis stream.',
      tags: ['admin', 'market'],
      access: 'admin',
      body: tickBodySchema,
      // A batch of ticks is the one large body the API takes.
      bodyLimit: 1024 * 1024,
      response: acceptedSchema,
      status: 202,
      errors: [503],
    },
    async (req, res) => {
      const result = await deps.feed.ingest(req.valid.body);
      sendSuccess(req, res, result, { status: 202 });
    },
  );
}
