/** Admin job endpoints: enqueue market-data jobs, list them, follow one; export the market. */
import { z } from 'zod';
import { writeNdjson } from '../../../loaders/ndjson.js';
import { exportMarket, type ExportDeps } from '../../market/export.js';
import type { MarketJobs } from '../../jobs/market-jobs.js';
import { jobRequestSchema } from '../../jobs/types.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be a job id') });
const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) });

/** Register POST/GET /admin/jobs and GET /admin/jobs/{id}. */
export function registerAdminJobRoutes(api: ApiBuilder, deps: { jobs: MarketJobs }): void {
  const tags = ['admin', 'jobs'];
  api.route(
    {
      method: 'post', path: '/admin/jobs', summary: 'Enqueue a market-data job (load files or folders, load the sample market, compute indicators)', tags, access: 'admin', body: jobRequestSchema, bodyLimit: 1024 * 1024, status: 202, errors: [503],
      description: 'Paths must be readable by the worker processes. Folders are planned: each file\'s kind is detected and files load in date order. Progress: GET /admin/jobs/{id}.',
    },
    async (req, res) => {
      const job = await deps.jobs.enqueue(req.valid.body as z.output<typeof jobRequestSchema>, req.user!.id);
      res.setHeader('Location', `${req.baseUrl}/admin/jobs/${job.id}`);
      sendSuccess(req, res, job, { status: 202 });
    },
  );
  api.route(
    { method: 'get', path: '/admin/jobs', summary: 'Recent market-data jobs, newest first', tags, access: 'admin', query: listQuery, errors: [503] },
    async (req, res) => {
      const { limit } = req.valid.query as z.output<typeof listQuery>;
      sendSuccess(req, res, await deps.jobs.list(limit));
    },
  );
  api.route(
    { method: 'get', path: '/admin/jobs/:id', summary: 'One job: state, progress, result, failure reason', tags, access: 'admin', params: idParams, errors: [404, 503] },
    async (req, res) => {
      const { id } = req.valid.params as z.output<typeof idParams>;
      sendSuccess(req, res, await deps.jobs.get(id));
    },
  );
}

/** Register GET /admin/export: the whole market as NDJSON (the format every loader reads back). */
export function registerAdminExportRoute(api: ApiBuilder, deps: ExportDeps): void {
  api.route(
    {
      method: 'get', path: '/admin/export', summary: 'Export the whole market as NDJSON (stocks, bars, halts, financials, index)', tags: ['admin'], access: 'admin', raw: true, contentType: 'application/x-ndjson',
      description: 'Streams one JSON object per line: a meta line, then records with a `kind` field (stock, bar, halt, financial, index). `stockscreen load` reads it back unchanged.',
    },
    async (_req, res) => {
      res.status(200).type('application/x-ndjson').setHeader('Content-Disposition', 'attachment; filename="market.ndjson"');
      await writeNdjson(res, exportMarket(deps));
      res.end();
    },
  );
}
