/**
 * Market-data jobs and uploads on the wire: POST/GET /admin/jobs, GET /admin/market, POST
 * /admin/uploads. Each shape is one zod schema: the routes validate and document with it, and its
 * type is what the daemon produces and the CLI reads. The job request's one bound the contract
 * cannot know (how many issues the sample market has: a loader's data) is the argument of
 * `jobRequestBody`, which the daemon calls once.
 */
import { z } from 'zod';
import { LOADER_FORMATS } from '../kernel/loader-formats.js';
import { calendarDate } from './fields.js';
import { SourceSyncSummary } from './sources.js';

const code = z.string().regex(/^[0-9A-Z]{6}$/, 'must be a 6-character KRX code');

/** One file of a load-files job: a server-side path inside import_dirs, with optional hints (`date` of a one-day file, `code` of a one-stock file; `format` detected when absent). */
export const JobFileSpec = z.strictObject({
  path: z.string().min(1).max(4096),
  format: z.enum(LOADER_FORMATS).optional(),
  date: calendarDate().optional(),
  code: code.optional(),
});
export type JobFileSpec = z.output<typeof JobFileSpec>;

/** A file uploaded with POST /admin/uploads, named by the id that call returned. */
export const JobUploadSpec = z.strictObject({
  upload: z.uuid('must be an upload id'),
  format: z.enum(LOADER_FORMATS).optional(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD').optional(),
  code: code.optional(),
});
export type JobUploadSpec = z.output<typeof JobUploadSpec>;

/** One input of a load-files job: a server-side path (inside import_dirs) or an upload. */
export type JobPathInput = JobFileSpec | JobUploadSpec | string;

/** The kinds of POST /admin/jobs; `sampleStocks`: the most issues a sample market may have (absent: unbounded, for answers). */
function jobRequestKinds(sampleStocks?: number) {
  const stocks = z.number().int().min(10);
  return [
    z.strictObject({
      type: z.literal('load-files'),
      /**
       * Files or folders inside the daemon's import_dirs, or uploads; folders are planned (kind
       * detected, loaded in order).
       */
      paths: z.array(z.union([z.string().min(1).max(4096), JobFileSpec, JobUploadSpec])).min(1).max(10_000),
      compute: z.boolean().default(true),
      /** Loading files into a database holding the sample market: remove the sample first (in the same transaction). */
      replace_sample: z.boolean().default(false),
    }),
    z.strictObject({
      type: z.literal('load-sample'),
      seed: z.number().int().min(0).max(2 ** 31).default(42),
      /** The largest N issues of the listed universe (default: all of them). */
      stocks: (sampleStocks === undefined ? stocks : stocks.max(sampleStocks, `at most ${sampleStocks} (every listed issue)`)).optional(),
      days: z.number().int().min(30).max(1500).optional(),
      compute: z.boolean().default(true),
      /** The database holds the sample market already: remove it first (in the same transaction). */
      replace: z.boolean().default(false),
    }),
    z.strictObject({ type: z.literal('compute-indicators') }),
  ] as const;
}

/** Body of POST /admin/jobs (also the job data) on a daemon whose sample market has `sampleStocks` issues. */
export function jobRequestBody(sampleStocks: number) {
  return z.discriminatedUnion('type', jobRequestKinds(sampleStocks));
}
/** A job request as sent (defaults not filled in). */
export type JobRequestInput = z.input<ReturnType<typeof jobRequestBody>>;

/**
 * A data-source run (POST /admin/sources/{source}/sync, or the daily schedule): dates `from`…`to`
 * (OpenDART: the listed companies, with the quarters that range asks for), each unit committed on
 * its own. `resume_after` is the last unit an earlier attempt of this same job committed (it goes
 * on after it); `scheduled` marks the daily run.
 */
export const SourceSyncRequest = z.object({
  type: z.literal('source-sync'), source: z.string(), from: z.string(), to: z.string(), compute: z.boolean(), replace_sample: z.boolean(),
  scheduled: z.boolean().optional(), resume_after: z.string().optional(),
});
export type SourceSyncRequest = z.output<typeof SourceSyncRequest>;

/** A job request as the daemon keeps it (defaults filled in): the `data` of a job. */
export const JobRequest = z.discriminatedUnion('type', [...jobRequestKinds(), SourceSyncRequest]);
export type JobRequest = z.output<typeof JobRequest>;

/** GET /admin/market: what the market tables hold (a load over the sample market needs a flag). */
export const MarketStateView = z.object({
  content: z.enum(['sample', 'files', 'empty']).describe('the generated sample market, loaded files, or nothing yet'),
  stocks: z.number().int().describe('stocks stored'),
}).meta({ id: 'MarketState' });
export type MarketStateView = z.output<typeof MarketStateView>;

/** Query of GET /admin/jobs: the newest `limit` jobs. */
export const JobListQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) });
export type JobListQuery = z.output<typeof JobListQuery>;

/** Progress of a running job. */
export const JobProgress = z.object({
  phase: z.enum(['queued', 'plan', 'stage', 'load', 'sync', 'index', 'indicators', 'tidy', 'done']).describe(
    'sync: a data source fetching and committing units (done/total count dates, or companies for OpenDART); stage: copying the live market into the load\'s staged copy; tidy: dropping the market it replaced (after the commit)',
  ),
  file: z.string().optional(), done: z.number().int(), total: z.number().int(), rows_ok: z.number().int(), rows_rejected: z.number().int(),
  calls: z.number().int().optional().describe('Provider calls made so far (data-source runs)'),
  waiting_until: z.string().optional().describe('Set while a data-source run waits for the provider\'s daily quota to reset'),
});
export type JobProgress = z.output<typeof JobProgress>;

/** Outcome of one file of a load. */
export const FileOutcome = z.object({
  file: z.string(), format: z.string(), rows_total: z.number().int(), rows_ok: z.number().int(), rows_rejected: z.number().int(),
  rejected: z.array(z.object({ line: z.number().int(), reason: z.string() })),
  skipped: z.array(z.object({ reason: z.string(), count: z.number().int() })),
  written: z.object({ stocks: z.number().int(), bars: z.number().int(), halts: z.number().int(), financials: z.number().int(), index: z.number().int() }),
  unknown_codes: z.array(z.string()),
});
export type FileOutcome = z.output<typeof FileOutcome>;

/** What a finished job returned. */
export const JobResult = z.object({
  files: z.array(FileOutcome), unrecognised: z.array(z.string()), rows_ok: z.number().int(), rows_rejected: z.number().int(),
  indicators: z.object({ version: z.string(), as_of: z.string().nullable(), stocks: z.number().int(), duration_ms: z.number() }).nullable(),
  duration_ms: z.number(),
  sync: SourceSyncSummary.optional().describe('Data-source runs: what the run covered (each unit written is also one entry of `files`, named `krx:YYYY-MM-DD` or `dart:<stock code>`)'),
});
export type JobResult = z.output<typeof JobResult>;

/**
 * BullMQ's job states (its JobState), plus the daemon's own two: `unknown`, and `stalled` (still
 * marked active but its worker stopped renewing the lock: it runs again from its start once a worker takes it).
 */
export const JOB_STATES = ['completed', 'failed', 'active', 'delayed', 'prioritized', 'waiting', 'waiting-children', 'unknown', 'stalled'] as const;
/** A job's state. */
export type JobState = (typeof JOB_STATES)[number];

/** A job as GET /admin/jobs and /admin/jobs/{id} show it. */
export const JobView = z
  .object({
    id: z.string(), type: z.enum(['load-files', 'load-sample', 'compute-indicators', 'source-sync']), state: z.enum(JOB_STATES), data: JobRequest,
    progress: JobProgress.nullable(), result: JobResult.nullable(), failed_reason: z.string().nullable(), attempts: z.number().int(),
    created_at: z.string(), started_at: z.string().nullable(), finished_at: z.string().nullable(), requested_by: z.string().nullable(),
  })
  .meta({ id: 'JobView' });
export type JobView = z.output<typeof JobView>;

/** What the daemon recorded for one upload (POST /admin/uploads). */
export const UploadInfo = z.object({ id: z.string(), name: z.string(), size: z.number(), sha256: z.string(), created_at: z.string() });
export type UploadInfo = z.output<typeof UploadInfo>;

/** Query of POST /admin/uploads. */
export const UploadQuery = z.object({
  name: z.string().min(1).max(512).describe('the file name as the operator sees it, relative to the folder they loaded (quotes.csv, index/kospi/2024.csv)'),
});
export type UploadQuery = z.output<typeof UploadQuery>;
