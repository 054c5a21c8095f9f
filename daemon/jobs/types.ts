/** Market-data job types, their data, progress and results (shared by API, workers and CLI). */
import { SAMPLE_UNIVERSE_SIZE } from '../../loaders/sample-market.js';
import { jobRequestBody } from '../contract/jobs.js';

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

/** Body of POST /admin/jobs (also the job data): the contract's, bounded by this daemon's sample market. */
export const jobRequestSchema = jobRequestBody(SAMPLE_UNIVERSE_SIZE);

/** A job request after defaults: what POST /admin/jobs takes, or a data-source run (POST /admin/sources/{source}/sync, the daily schedule). */
export type { JobPathInput, JobRequest } from '../contract/jobs.js';

/** Progress, file outcomes and results are wire types (daemon/contract/jobs.ts). */
export type { FileOutcome, JobProgress, JobResult } from '../contract/jobs.js';
