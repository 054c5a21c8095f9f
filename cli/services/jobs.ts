/**
 * Market-data jobs over the admin API: enqueue (POST /admin/jobs), list, show, and
 * follow one until it finishes by polling GET /admin/jobs/{id} (the job runs in a
 * worker process; its progress lives in Redis, so polling is the simple, honest way).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { API_PREFIX, type ApiResponse } from './api-client.js';
import { CliError, LOCAL_CODES } from './errors.js';
import type { JobRequest, JobView } from './market-types.js';
import type { Session } from './session.js';

/** Jobs in these states will not change any more. */
export const FINISHED_STATES: readonly string[] = ['completed', 'failed'];

/** A job request as sent (defaults are filled in by the server). */
export type JobRequestInput =
  | { type: 'load-files'; paths: (string | { path: string; format?: string; date?: string; code?: string })[]; compute?: boolean }
  | { type: 'load-sample'; seed?: number; stocks?: number; days?: number; compute?: boolean }
  | { type: 'compute-indicators' };

/**
 * POST /admin/jobs.
 * @throws CliError FORBIDDEN for a non-admin, INVALID_REQUEST with field details, SERVICE_UNAVAILABLE without Redis
 */
export async function enqueueJob(session: Session, request: JobRequestInput): Promise<ApiResponse<JobView>> {
  return session.api.request<JobView>({ method: 'POST', path: `${API_PREFIX}/admin/jobs`, body: request });
}

/** GET /admin/jobs (newest first). @throws CliError FORBIDDEN for a non-admin */
export async function listJobs(session: Session, limit: number): Promise<ApiResponse<JobView[]>> {
  return session.api.request<JobView[]>({ path: `${API_PREFIX}/admin/jobs`, query: { limit } });
}

/** GET /admin/jobs/{id}. @throws CliError NOT_FOUND for an unknown id */
export async function getJob(session: Session, id: string): Promise<ApiResponse<JobView>> {
  return session.api.request<JobView>({ path: `${API_PREFIX}/admin/jobs/${encodeURIComponent(id)}` });
}

/** Options of followJob. */
export interface FollowOptions {
  /** Called with every polled view (the caller decides what changed). */
  onUpdate(view: JobView): void;
  /** Poll interval (default 300 ms). */
  intervalMs?: number;
  /** Stops following (the job keeps running). */
  signal?: AbortSignal;
}

/**
 * Poll a job until it completes or fails and return the last answer.
 * @throws CliError CANCELLED when `signal` aborts; the API's errors (e.g. NOT_FOUND when the job was removed)
 */
export async function followJob(session: Session, id: string, options: FollowOptions): Promise<ApiResponse<JobView>> {
  const intervalMs = options.intervalMs ?? 300;
  for (;;) {
    if (options.signal?.aborted) throw stoppedFollowing(id);
    const res = await getJob(session, id);
    options.onUpdate(res.data);
    if (FINISHED_STATES.includes(res.data.state)) return res;
    if (res.data.state === 'unknown') throw new CliError({ code: 'JOB_UNKNOWN', message: `job ${id} is in no known state (removed from the queue?)` });
    try {
      await delay(intervalMs, undefined, { signal: options.signal });
    } catch {
      throw stoppedFollowing(id);
    }
  }
}

function stoppedFollowing(id: string): CliError {
  return new CliError({ code: LOCAL_CODES.CANCELLED, message: `stopped following job ${id}; it keeps running`, hint: `check it with \`stockscreen jobs show ${id}\`` });
}

/**
 * The error for a job that failed: its reason as the server recorded it. A refused file's
 * reason has one `file:line: reason` line per rejected row after its first line: those
 * are printed under the error line.
 */
export function jobFailedError(view: JobView): CliError {
  const [first, ...more] = (view.failed_reason ?? 'no reason recorded').split('\n');
  return new CliError({
    code: 'JOB_FAILED',
    message: `job ${view.id} (${view.type}) failed: ${first ?? ''}`,
    context: more.map((line) => line.trim()).filter(Boolean),
    hint: `details: \`stockscreen jobs show ${view.id}\``,
  });
}

/** Describe what a job request will do, for the "enqueued" message. */
export function describeRequest(request: JobRequest | JobRequestInput): string {
  if (request.type === 'load-files') return `load ${request.paths.length} path${request.paths.length === 1 ? '' : 's'}`;
  if (request.type === 'load-sample') return `load the sample market${request.seed !== undefined ? ` (seed ${request.seed})` : ''}`;
  return 'compute indicators';
}
