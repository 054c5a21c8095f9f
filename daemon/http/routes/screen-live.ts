/**
 * Live screens over REST: `GET /screen/live` lists the caller's live screens on
 * every daemon (the Redis registry), and `POST /screen?prices=live` answers a screen on the
 * live view — the snapshot at live prices that live screens evaluate (daemon/live/README.md
 * "Same prices"), so a live screen's members always equal this answer's page.
 */
import type { Response } from 'express';
import { z } from 'zod';
import { LiveScreenEntry, type ScreenRunQuery } from '../../contract/screening.js';
import type { LiveRegistry } from '../../live/registry.js';
import type { CompiledScreen } from '../../screening/request/compiled-screen.js';
import { describeFiltersApplied } from '../../screening/request/request.js';
import { executeQuery } from '../../screening/engine/query.js';
import type { ScreenAnswer } from '../../screening/engine/screen-service.js';
import type { Snapshot } from '../../screening/engine/snapshot.js';
import type { ApiBuilder, ValidRequest } from '../api.js';
import { sendSuccess } from '../envelope.js';

/** True when the request asks for live prices. */
export function wantsLivePrices(req: ValidRequest<{ query: ScreenRunQuery }>): boolean {
  return req.valid.query.prices === 'live';
}

/** Answer the compiled screen on the live view with `send` (screen.ts sendScreen); never from the cache. */
export function answerLiveScreen<R extends ValidRequest<{ body: { screen: CompiledScreen } }>>(req: R, res: Response, liveSnapshot: () => Snapshot, send: (req: R, res: Response, answer: ScreenAnswer) => void): void {
  const { query, expression } = req.valid.body.screen;
  const snap = liveSnapshot();
  const result = executeQuery(snap, query, expression === undefined ? {} : { parsedExpression: expression });
  send(req, res, {
    total: result.total, page: result.page, per_page: result.per_page, total_pages: result.total_pages, query_time_ms: result.query_time_ms,
    filters_applied: describeFiltersApplied(query), snapshot_version: `${snap.version}+live`, stocks: Buffer.from(JSON.stringify(result.items)), cached: false,
  });
}

/** Register GET /screen/live. */
export function registerLiveScreenRoutes(api: ApiBuilder, deps: { registry: Pick<LiveRegistry, 'list'> }): void {
  api.route(
    {
      method: 'get', path: '/screen/live', tags: ['screening'], access: 'user',
      summary: "The caller's active live screens (WebSocket subscription_type screen), on every daemon",
      description: 'Live screens are opened over the WebSocket (subscribe with subscription_type "screen"); each is listed until it is unsubscribed or its connection closes.',
      response: z.array(LiveScreenEntry),
    },
    async (req, res) => {
      const entries = await deps.registry.list(req.user!.id);
      sendSuccess<LiveScreenEntry[]>(req, res, entries, { meta: { total: entries.length } });
    },
  );
}
