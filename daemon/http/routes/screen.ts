/**
 * Screening endpoints: POST /screen (alias /screening) in both request and response
 * shapes of the spec, CSV export, the field catalogue and predefined templates.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { INDICATORS } from '../../indicators/registry.js';
import type { ScreenQuery } from '../../screening/query.js';
import { parseTemplateOverrides } from '../../screening/request.js';
import { screenRequestJsonSchema } from '../../screening/request-openapi.js';
import type { ScreenAnswer, ScreenService } from '../../screening/screen-service.js';
import type { SnapshotService } from '../../screening/snapshot-service.js';
import { listTemplates, applyTemplateOverrides, getTemplate, missingInputs, requireTemplate } from '../../screening/templates.js';
import type { PresetsRepo } from '../../store/presets-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';
import { csvChunks, writeChunks } from './screen-csv.js';

/** Collaborators of the screening routes. */
export interface ScreenRoutesDeps {
  screens: ScreenService;
  snapshot: SnapshotService;
  knownFields: ReadonlySet<string>;
}

// Validation stays with screens.parse (field-level details, valid_fields); the documented
// schema is generated from the indicator registry and replaces the open record in OpenAPI.
const screenBody = z
  .record(z.string(), z.unknown())
  .meta({
    ...screenRequestJsonSchema(INDICATORS),
    id: 'ScreenRequest',
    description:
      'Shape A: {filters:{market, <indicator>:{min,max}}, sort:[{field,direction}], limit}. Shape B (flat): market, min_<indicator>, max_<indicator>. ' +
      'Also: sectors, industries, codes, exclude (administrative|spac|preferred|halted), expression, page, per_page (≤ 500), limit, fields, sort_by/order. {} is valid.',
    example: { filters: { market: 'KOSPI', per: { max: 10 }, roe: { min: 15 } }, sort: [{ field: 'roe', direction: 'desc' }], limit: 20 },
  });

const screenItem = z.object({ code: z.string(), name: z.string(), market: z.string(), sector: z.string().nullable() }).loose();
const screenResponse = z.array(screenItem).meta({ id: 'ScreenItems' });
const templateParams = z.object({ template: z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be a template id such as value') });

/** True when the caller asked for CSV (Accept: text/csv, ?format=csv or body.format). */
export function wantsCsv(req: Request): boolean {
  const body = req.body as Record<string, unknown> | undefined;
  return req.query.format === 'csv' || body?.format === 'csv' || (req.accepts(['application/json', 'text/csv']) === 'text/csv' && !req.accepts('application/json'));
}

/** Stream every match (not one page) as CSV with a header row, honouring backpressure. */
async function sendCsv(res: Response, screens: ScreenService, query: ScreenQuery): Promise<void> {
  // Run before the headers go out, so a bad query still gets its 400.
  const matches = screens.exportAll(query);
  res.status(200).type('text/csv; charset=utf-8').setHeader('Content-Disposition', 'attachment; filename="screen.csv"');
  res.setHeader('X-Total-Count', String(matches.total));
  if (await writeChunks(res, csvChunks(matches))) res.end();
}

/** Collaborators of createCachedRunCheck. */
export interface CachedRunCheckDeps {
  screens: ScreenService;
  knownFields: ReadonlySet<string>;
  /** Needed to recognise cached preset runs; without it they always count. */
  presets?: Pick<PresetsRepo, 'get'>;
}

/**
 * The rate limiter's `isFreeRequest` for every way of running a screen (spec "Rate-limit
 * rules" 4: an answer from the result cache counts against nothing): POST /screen,
 * /screening, /screen/templates/{id} and /screen/presets/{id}/run all share one cache
 * keyed by the normalised query, so each is free exactly when its query's answer is
 * cached now. `req.path` is relative to the API mount; a preset run needs `req.user`
 * (set by the limiter's authentication). Invalid requests and CSV exports are never free.
 */
export function createCachedRunCheck(deps: CachedRunCheckDeps): (req: Request) => boolean | Promise<boolean> {
  // A CSV export is never answered from the cache, so it always counts. Synchronous for
  // requests that cannot be screening runs (most requests: no promise, no await).
  return (req) => (req.method !== 'POST' || wantsCsv(req) ? false : isCachedRun(deps, req));
}

async function isCachedRun(deps: CachedRunCheckDeps, req: Request): Promise<boolean> {
  const body: unknown = req.body ?? {};
  if (/^\/(screen|screening)\/?$/i.test(req.path)) return deps.screens.isCached(body);
  const template = /^\/screen\/templates\/([a-z0-9-]{1,64})\/?$/.exec(req.path)?.[1];
  if (template !== undefined) {
    const found = getTemplate(template);
    if (!found) return false;
    try {
      return await deps.screens.isCachedQuery(applyTemplateOverrides(found, parseTemplateOverrides(body, deps.knownFields)));
    } catch {
      return false;
    }
  }
  const preset = /^\/screen\/presets\/([0-9a-f-]{36})\/run\/?$/i.exec(req.path)?.[1];
  if (preset !== undefined && deps.presets && req.user) {
    const saved = await deps.presets.get(req.user.id, preset);
    if (!saved) return false;
    try {
      return await deps.screens.isCachedQuery(deps.screens.parse(saved.query));
    } catch {
      return false;
    }
  }
  return false;
}

/** Send a screen answer in the envelope plus the spec's shape-B top-level fields. */
export function sendScreen(req: Request, res: Response, answer: ScreenAnswer): void {
  res.setHeader('X-Cache', answer.cached ? 'HIT' : 'MISS');
  const { stocks, total, page, per_page, total_pages, query_time_ms, filters_applied, snapshot_version, missing_inputs, message } = answer;
  sendSuccess(req, res, stocks, {
    meta: { total, page, per_page, total_pages, snapshot_version, cached: answer.cached },
    top: { stocks, query_time_ms, filters_applied, ...(missing_inputs ? { missing_inputs, message } : {}) },
  });
}

/** Register the screening routes. */
export function registerScreenRoutes(api: ApiBuilder, deps: ScreenRoutesDeps): void {
  const tags = ['screening'];
  const runScreen = async (req: Request, res: Response) => {
    const query = deps.screens.parse(req.body ?? {});
    if (wantsCsv(req)) return sendCsv(res, deps.screens, query);
    sendScreen(req, res, await deps.screens.run(query));
  };
  const describe =
    'Filters, expression, sort and page over the latest indicator snapshot. Identical requests (after normalisation; shape A and B alike) are answered from a 5-minute cache (X-Cache: HIT) that does not count against rate limits. ' +
    'Response: the envelope with data = the page of stocks and meta = {timestamp, request_id, total, page, per_page, total_pages}, plus top-level stocks, query_time_ms and filters_applied. Accept: text/csv or format=csv streams every match as CSV.';
  for (const path of ['/screen', '/screening']) {
    api.route({ method: 'post', path, summary: path === '/screen' ? 'Screen stocks' : 'Screen stocks (alias of /screen)', description: describe, tags, access: 'user', body: screenBody, response: screenResponse }, runScreen);
  }

  api.route(
    { method: 'get', path: '/screen/fields', summary: 'Every screenable indicator with label, unit, category and definition', tags, access: 'user' },
    (req, res) => {
      const snap = deps.snapshot.current();
      sendSuccess(req, res, INDICATORS.map((d) => ({ ...d, coverage: snap.columns.get(d.id)?.count ?? 0 })), { meta: { total: INDICATORS.length, stocks: snap.size } });
    },
  );

  api.route(
    { method: 'get', path: '/screen/templates', summary: 'Predefined screens (cached; exempt from rate limits)', tags, access: 'user', rateLimitExempt: true },
    (req, res) => {
      res.setHeader('Cache-Control', 'private, max-age=300');
      const snap = deps.snapshot.current();
      sendSuccess(req, res, listTemplates().map((t) => ({ ...t, missing_inputs: missingInputs(t, snap) })));
    },
  );

  api.route(
    {
      method: 'post', path: '/screen/templates/:template', summary: 'Run a predefined screen; the body may override market, sort and page', tags, access: 'user', params: templateParams, errors: [404],
      description: 'When the loaded data lacks every value a template needs (e.g. no financial statements), the answer is empty with missing_inputs and a message, not an error.',
    },
    async (req, res) => {
      const { template: id } = req.valid.params as z.output<typeof templateParams>;
      const template = requireTemplate(id);
      const query = applyTemplateOverrides(template, parseTemplateOverrides(req.body ?? {}, deps.knownFields));
      const missing = missingInputs(template, deps.snapshot.current());
      const extra = missing.length ? { missing_inputs: missing, message: `This template needs ${missing.join(', ')}, which no loaded stock has (load financial statements or more price history).` } : {};
      if (wantsCsv(req)) return sendCsv(res, deps.screens, query);
      sendScreen(req, res, await deps.screens.run(query, extra));
    },
  );
}
