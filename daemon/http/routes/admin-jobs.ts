/** Admin job endpoints: enqueue market-data jobs, list them, follow one; export the market. */
import { z } from 'zod';
import { writeNdjson } from '../../../loaders/ndjson.js';
import { exportMarket, type ExportDeps } from '../../market/export.js';
import { AppError, isAppError, invalidRequest } from '../../errors.js';
import { mixingProblem, type MarketState } from '../../jobs/market-content.js';
import { realRoots, resolveInsideRoots } from '../../jobs/import-roots.js';
import type { MarketJobs } from '../../jobs/market-jobs.js';
import { JobListQuery, JobView, MarketStateView, type JobPathInput, type JobRequest } from '../../contract/jobs.js';
import { jobRequestSchema } from '../../jobs/types.js';
import { findUpload } from '../../jobs/uploads.js';
import type { ApiBuilder } from '../api.js';
import { idempotencyHeaderSchema, idempotencyKeyOf, type IdempotencyStore } from '../idempotency.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be a job id') });

/** Collaborators of the job routes. */
export interface AdminJobDeps {
  jobs: MarketJobs;
  /** import_dirs: server-side paths must lie inside one (none: path loads are off). */
  importDirs?: readonly string[];
  /** Where uploads are kept. */
  uploadsDir?: string;
  /** What the market tables hold (a load that would mix or merge markets is refused before it is enqueued). */
  marketState(): Promise<MarketState>;
  /** Idempotency keys of POST /admin/jobs (absent: the header is validated, then ignored). */
  idempotency?: IdempotencyStore;
}

/**
 * 409 for a load that would mix the sample market with real files or merge one sample market
 * into another: the message says what would happen and `details.flag` the field that does what
 * was meant (`replace_sample`, `replace`), `details.cli_flag` the CLI's.
 * @throws AppError CONFLICT
 */
async function refuseMixing(request: JobRequest, deps: Pick<AdminJobDeps, 'marketState'>): Promise<void> {
  if (request.type === 'compute-indicators') return;
  const state = await deps.marketState();
  const problem = mixingProblem(request, state);
  if (!problem) return;
  throw new AppError('CONFLICT', problem.message, { content: state.content, stocks: state.stocks, flag: problem.flag?.field ?? null, cli_flag: problem.flag?.cli ?? null });
}

/** One input checked before anything is enqueued: a path becomes its real path inside a root. */
async function checkInput(p: JobPathInput, i: number, roots: readonly string[], uploadsDir: string | undefined): Promise<JobPathInput> {
  const spec = typeof p === 'string' ? { path: p } : p;
  if ('upload' in spec) {
    if (!uploadsDir) throw invalidRequest('uploads are not available', { [`paths.${i}`]: 'no upload directory' });
    await findUpload(uploadsDir, spec.upload).catch(() => {
      throw invalidRequest(`upload ${spec.upload} not found`, { [`paths.${i}`]: 'no such upload (upload the file again)' });
    });
    return p;
  }
  const real = await resolveInsideRoots(spec.path, roots, `paths.${i}`);
  return typeof p === 'string' ? real : { ...spec, path: real };
}

/**
 * A load-files request with every path checked against the import roots: 400 with
 * the reason for any path outside them, before a byte is read.
 * @throws AppError INVALID_REQUEST with `details["paths.N"]`
 */
export async function checkJobInputs(request: JobRequest, deps: Omit<AdminJobDeps, 'jobs'>): Promise<JobRequest> {
  if (request.type !== 'load-files') return request;
  const roots = await realRoots(deps.importDirs ?? []);
  const paths: JobPathInput[] = [];
  for (const [i, p] of request.paths.entries()) {
    try {
      paths.push(await checkInput(p, i, roots, deps.uploadsDir));
    } catch (err) {
      if (isAppError(err)) throw err;
      throw invalidRequest('path cannot be checked', { [`paths.${i}`]: 'cannot be checked' });
    }
  }
  return { ...request, paths };
}

/** Seconds a client should wait before asking again when the queue cannot answer. */
const RETRY_AFTER_S = 2;

/** `work`, with Retry-After on the 503 it fails with when the queue cannot answer. */
async function retryLater<T>(res: { setHeader(name: string, value: string): unknown }, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    // Also when the request with the same Idempotency-Key is still being answered: its answer comes in a moment.
    if (isAppError(err) && (err.code === 'SERVICE_UNAVAILABLE' || err.details.in_progress === true)) res.setHeader('Retry-After', String(RETRY_AFTER_S));
    throw err;
  }
}

/** Register POST/GET /admin/jobs, GET /admin/jobs/{id} and GET /admin/market. */
export function registerAdminJobRoutes(api: ApiBuilder, deps: AdminJobDeps): void {
  const tags = ['admin', 'jobs'];
  api.route(
    {
      method: 'post', path: '/admin/jobs', summary: 'Enqueue a market-data job (load files or folders, load the sample market, compute indicators)', tags, access: 'admin', body: jobRequestSchema, bodyLimit: 1024 * 1024, status: 202, response: JobView, errors: [409, 503],
      description: 'Inputs are uploads (POST /admin/uploads) or paths inside the daemon\'s import_dirs (400 otherwise, nothing read). Folders are planned: each file\'s kind is detected and files load in date order. The whole job commits at once. Progress: GET /admin/jobs/{id}. '
        + '409 when the load would surprise (details.flag names the field that does what was meant): real files over the sample market without `replace_sample`, the sample market over loaded files, or the sample market over the sample market without `replace` (it would merge into it). '
        + 'Jobs belong to the daemon\'s database: daemons sharing a Redis but not a database never see each other\'s. '
        + 'A client that may send the request again (after a timeout) gives it an `Idempotency-Key`: the same key and body within 24 h answer the same job, never a second one.',
      requestHeaders: idempotencyHeaderSchema,
    },
    async (req, res) => {
      const body = req.valid.body;
      const key = idempotencyKeyOf(req.headers['idempotency-key']);
      const claim = key && deps.idempotency ? await retryLater(res, deps.idempotency.claim(req.user!.id, key, body)) : undefined;
      if (claim?.kind === 'replay') {
        const job = claim.answer.data as { id: string };
        res.setHeader('Idempotent-Replayed', 'true');
        res.setHeader('Location', `${req.baseUrl}/admin/jobs/${job.id}`);
        return sendSuccess(req, res, job, { status: claim.answer.status });
      }
      try {
        const request = await checkJobInputs(body, deps);
        await refuseMixing(request, deps);
        const job = await retryLater(res, deps.jobs.enqueue(request, req.user!.id));
        // Recorded before answering: a client retrying the moment it gives up finds the job.
        await claim?.complete({ status: 202, data: job }).catch(() => undefined);
        res.setHeader('Location', `${req.baseUrl}/admin/jobs/${job.id}`);
        sendSuccess(req, res, job, { status: 202 });
      } catch (err) {
        await claim?.release();
        throw err;
      }
    },
  );
  api.route(
    {
      method: 'get', path: '/admin/market', summary: 'What the market tables hold: the sample market, loaded files, or nothing', tags, access: 'admin', response: MarketStateView,
      description: 'A client asks before uploading files: real files over the sample market need `replace_sample` (`stockscreen load --replace-sample`), a second sample market needs `replace`.',
    },
    async (req, res) => {
      sendSuccess(req, res, await deps.marketState());
    },
  );
  api.route(
    { method: 'get', path: '/admin/jobs', summary: 'Recent market-data jobs, newest first', tags, access: 'admin', query: JobListQuery, response: z.array(JobView), errors: [503] },
    async (req, res) => {
      const { limit } = req.valid.query;
      sendSuccess(req, res, await retryLater(res, deps.jobs.list(limit)));
    },
  );
  api.route(
    { method: 'get', path: '/admin/jobs/:id', summary: 'One job: state, progress, result, failure reason', tags, access: 'admin', params: idParams, response: JobView, errors: [404, 503] },
    async (req, res) => {
      const { id } = req.valid.params;
      sendSuccess(req, res, await retryLater(res, deps.jobs.get(id)));
    },
  );
}

/** Register GET /admin/export: the whole market as NDJSON (the format every loader reads back). */
export function registerAdminExportRoute(api: ApiBuilder, deps: ExportDeps): void {
  api.route(
    {
      method: 'get', path: '/admin/export', summary: 'Export the whole market as NDJSON (stocks, bars, halts, financials, index, designations)', tags: ['admin'], access: 'admin', raw: true, contentType: 'application/x-ndjson',
      description: 'Streams one JSON object per line: a meta line, then records with a `kind` field (stock, bar, halt, financial, index, designation: the designation a dated file stated for an issue). `stockscreen load` reads it back unchanged.',
    },
    async (_req, res) => {
      res.status(200).type('application/x-ndjson').setHeader('Content-Disposition', 'attachment; filename="market.ndjson"');
      await writeNdjson(res, exportMarket(deps));
      res.end();
    },
  );
}
