/**
 * Data-source endpoints (admin): GET /admin/sources (every source's status, job-run or live),
 * POST /admin/sources/{source}/test (one call per service: does the key and each approval work),
 * POST /admin/sources/{source}/sync (a backfill as a market-data job, followed with GET /admin/jobs/{id}).
 * No answer ever carries a key.
 */
import { z } from 'zod';
import { JobView } from '../../contract/jobs.js';
import { SourceStatus, SourceSyncBody, SourceTestResult } from '../../contract/sources.js';
import { AppError, invalidRequest, notFound } from '../../errors.js';
import { isValidDate } from '../../kernel/krx-calendar.js';
import { mixingProblem, type MarketState } from '../../jobs/market-content.js';
import type { MarketJobs } from '../../jobs/market-jobs.js';
import type { SourceDriver } from '../../sources/driver.js';
import type { SourceRegistry } from '../../sources/registry.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

/** Collaborators of the source routes. */
export interface AdminSourceDeps {
  registry: SourceRegistry;
  drivers: ReadonlyMap<string, SourceDriver>;
  jobs: MarketJobs;
  marketState(): Promise<MarketState>;
  now(): number;
}

/** The earliest date a backfill may start (KRX Open API data begins in 2010). */
const FIRST_DATE = '2010-01-04';

const sourceParams = z.object({ source: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be a source name') });

/** What configures each job-run source (the environment variable an operator sets). */
const CONFIG_OF: Record<string, string> = { krx: 'its key (STOCKSCREEN_KRX_API_KEY)', fdr: 'its base URL (STOCKSCREEN_FDR_CACHE_URL)', dart: 'its key (STOCKSCREEN_DART_API_KEY)' };

/** The source named in the path, run as jobs and configured. @throws AppError NOT_FOUND, CONFLICT */
function jobSource(deps: AdminSourceDeps, name: string): SourceDriver {
  const driver = deps.drivers.get(name);
  if (!driver) throw notFound('Source', { source: name });
  if (!driver.configured) throw new AppError('CONFLICT', `source ${name} is not configured: set ${CONFIG_OF[name] ?? 'its configuration'} and restart the daemon`, { source: name, configured: false });
  return driver;
}

/** Register the source routes. */
export function registerAdminSourceRoutes(api: ApiBuilder, deps: AdminSourceDeps): void {
  const tags = ['admin', 'sources'];
  api.route(
    { method: 'get', path: '/admin/sources', summary: 'Every data source: configured, last success, last error, calls today, staleness', tags, access: 'admin', response: z.array(SourceStatus) },
    async (req, res) => {
      sendSuccess(req, res, await deps.registry.statuses());
    },
  );
  api.route(
    {
      method: 'post', path: '/admin/sources/:source/test', summary: 'Call each service of a source once: does the key and each approval work', tags, access: 'admin', params: sourceParams, response: SourceTestResult, errors: [404],
      description: 'One call per service (they count against the key\'s daily quota). A failed check names the provider\'s code and message and, for an unapproved service, what to apply for.',
    },
    async (req, res) => {
      const { source } = req.valid.params;
      const provider = deps.registry.get(source);
      if (!provider?.test) throw notFound('Source', { source });
      sendSuccess(req, res, await provider.test());
    },
  );
  api.route(
    {
      method: 'post', path: '/admin/sources/:source/sync', summary: 'Backfill a source from `from` to `to` as a market-data job', tags, access: 'admin', params: sourceParams, body: SourceSyncBody, status: 202, response: JobView, errors: [404, 409, 503],
      description: 'Answers 202 with the job; follow it with GET /admin/jobs/{id} (progress: dates done/total, rows, calls). Each trading date commits on its own; a date fetched again with the same content writes nothing, a changed one (a correction) replaces it. '
        + '`to` defaults to the last trading day the provider has published (KRX: the previous trading day, the next morning; FDR cache: the same day, in the evening); `from` defaults to `to`. 409 when the source is not configured, or over the sample market without `replace_sample`. '
        + 'OpenDART (`dart`): the units are the listed companies the daemon holds (progress: companies done/total), each committed on its own with its statements of the four most recent quarters that ended before `to` (default today, KST) and of every quarter ending from `from` on, each quarter dated by its report\'s receipt date (as-of screens use it only from then on). An empty body fetches the four most recent quarters of every listed company. It needs the market\'s stocks loaded from files or a market source first (409 over the sample market or an empty one; `replace_sample` is 400). '
        + 'A run that meets the provider\'s daily limit (OpenDART 020, or the configured budget) waits, delayed, until the next KST day and goes on after the last committed unit; so does a run stopped by an outage or a kill.',
    },
    async (req, res) => {
      const { source } = req.valid.params;
      const body = req.valid.body;
      const driver = jobSource(deps, source);
      const published = driver.lastPublished(deps.now());
      const to = body.to ?? published;
      const from = body.from ?? to;
      const details: Record<string, string> = {};
      if (to > published) details.to = `must be on or before ${published}, the last date the provider has published`;
      if (from > to) details.from = 'must be on or before `to`';
      if (from < FIRST_DATE || !isValidDate(from)) details.from = `must be on or after ${FIRST_DATE}`;
      if (Object.keys(details).length > 0) throw invalidRequest('invalid date range', details);
      const state = await deps.marketState();
      if (driver.kind === 'financials') {
        // Statements attach to stocks already loaded: the generated sample market's, or none, cannot take them.
        if (body.replace_sample) throw invalidRequest('invalid request', { replace_sample: `${source} adds statements to the loaded stocks; it never replaces the market` });
        if (state.content !== 'files' || state.stocks === 0) {
          throw new AppError('CONFLICT', `${source} adds statements to the stocks loaded from files or a market source: load or sync the market first (it holds ${state.content === 'sample' ? 'the generated sample market' : 'no stocks'})`, { content: state.content, stocks: state.stocks });
        }
      }
      const problem = mixingProblem({ type: 'load-files', paths: ['-'], compute: false, replace_sample: body.replace_sample }, state);
      if (problem) throw new AppError('CONFLICT', problem.message, { content: state.content, stocks: state.stocks, flag: problem.flag?.field ?? null, cli_flag: problem.flag?.cli ?? null });
      const job = await deps.jobs.enqueue({ type: 'source-sync', source, from, to, compute: body.compute, replace_sample: body.replace_sample }, req.user!.id);
      res.setHeader('Location', `${req.baseUrl}/admin/jobs/${job.id}`);
      sendSuccess(req, res, job, { status: 202 });
    },
  );
}
