/** Market-data job types, their data, progress and results (shared by API, workers and CLI). */
import { z } from 'zod';
import { SAMPLE_UNIVERSE_SIZE } from '../../loaders/sample-market.js';
import { LOADER_FORMATS } from '../../loaders/types.js';
import { calendarDate } from '../contract/fields.js';
import type { JobRequest as WireJobRequest, SourceSyncRequest } from '../contract/jobs.js';

export type { SourceSyncRequest } from '../contract/jobs.js';

/** The market-data queue's name (a database's queue adds its identity: marketQueueName). */
export const MARKET_QUEUE = 'market';

/**
 * The market-data queue of one database: `jobs list` after a fresh data directory shows only
 * this database's jobs, and a worker never loads a job into another database than the one it
 * was asked for (daemons sharing a Redis, not a database).
 */
export function marketQueueName(databaseId: string): string {
  return `${MARKET_QUEUE}-${databaseId}`;
}

const fileSpec = z.strictObject({
  path: z.string().min(1).max(4096),
  format: z.enum(LOADER_FORMATS).optional(),
  date: calendarDate().optional(),
  code: z.string().regex(/^[0-9A-Z]{6}$/, 'must be a 6-character KRX code').optional(),
});

/** A file uploaded with POST /admin/uploads, named by the id that call returned. */
const uploadSpec = z.strictObject({
  upload: z.uuid('must be an upload id'),
  format: z.enum(LOADER_FORMATS).optional(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD').optional(),
  code: z.string().regex(/^[0-9A-Z]{6}$/, 'must be a 6-character KRX code').optional(),
});

/** One input of a load-files job: a server-side path (inside import_dirs) or an upload. */
export type JobPathInput = z.output<typeof fileSpec> | z.output<typeof uploadSpec> | string;

/** Body of POST /admin/jobs (also the job data). */
export const jobRequestSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('load-files'),
    /**
     * Files or folders inside the daemon's import_dirs, or uploads; folders are planned (kind
     * detected, loaded in order).
     */
    paths: z.array(z.union([z.string().min(1).max(4096), fileSpec, uploadSpec])).min(1).max(10_000),
    compute: z.boolean().default(true),
    /** Loading files into a database holding the sample market: remove the sample first (in the same transaction). */
    replace_sample: z.boolean().default(false),
  }),
  z.strictObject({
    type: z.literal('load-sample'),
    seed: z.number().int().min(0).max(2 ** 31).default(42),
    /** The largest N issues of the listed universe (default: all of them). */
    stocks: z.number().int().min(10).max(SAMPLE_UNIVERSE_SIZE, `at most ${SAMPLE_UNIVERSE_SIZE} (every listed issue)`).optional(),
    days: z.number().int().min(30).max(1500).optional(),
    compute: z.boolean().default(true),
    /** The database holds the sample market already: remove it first (in the same transaction). */
    replace: z.boolean().default(false),
  }),
  z.strictObject({ type: z.literal('compute-indicators') }),
]);

/** A job request after defaults: what POST /admin/jobs takes, or a data-source run (POST /admin/sources/{source}/sync, the daily schedule). */
export type JobRequest = z.output<typeof jobRequestSchema> | SourceSyncRequest;

/** Progress, file outcomes and results are wire types (daemon/contract/jobs.ts). */
export type { FileOutcome, JobProgress, JobResult } from '../contract/jobs.js';

type Assert<T extends true> = T;
/** Compile-time check: a parsed request is a contract JobRequest (a drift between the schema and the contract fails to compile). */
export type JobRequestIsWire = Assert<JobRequest extends WireJobRequest ? true : false>;
