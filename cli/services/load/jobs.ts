/**
 * Market-data jobs over the admin API: enqueue (POST /admin/jobs), list, show, and
 * follow one until it finishes by polling GET /admin/jobs/{id} (the job runs in a
 * worker process; its progress lives in Redis, so polling is the simple, honest way).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { JobRequest, JobRequestInput, JobView } from '../../../daemon/contract/jobs.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { CliError, LOCAL_CODES } from '../session/errors.js';
import type { Session } from '../session/session.js';

/** Jobs in these states will not change any more. */
export const FINISHED_STATES: readonly string[] = ['completed', 'failed'];

/**
 * POST /admin/jobs. A 503 (the queue did not answer in time) or a refused connection is tried
 * again with backoff for up to `retryForMs`: the request either did not reach the queue or,
 * at worst, enqueues the load twice, which changes nothing (loads are idempotent).
 * @throws CliError FORBIDDEN for a non-admin, INVALID_REQUEST with field details, SERVICE_UNAVAILABLE after the retries
 */
export async function enqueueJob(session: Session, request: JobRequestInput, retryForMs = 0, onBusy?: (message: string | null) => void): Promise<ApiResponse<JobView>> {
  const started = Date.now();
  for (let tries = 0; ; tries++) {
    try {
      return await session.api.request<JobView>({ method: 'POST', path: `${API_PREFIX}/admin/jobs`, body: request });
    } catch (err) {
      const retryable = err instanceof CliError && (err.status === 503 || err.code === 'ECONNREFUSED');
      if (!retryable || Date.now() - started >= retryForMs) throw err;
      const wait = backoffMs(tries);
      onBusy?.(busyText(wait));
      await delay(wait);
    }
  }
}

/** The pause before try `tries + 1` while the daemon is busy: 0.5 s doubling to 4 s. */
function backoffMs(tries: number): number {
  return Math.min(MAX_BACKOFF_MS, 500 * 2 ** tries);
}

function busyText(waitMs: number): string {
  return `daemon busy, retrying in ${Math.ceil(waitMs / 1000)} s`;
}

/** GET /admin/jobs (newest first). @throws CliError FORBIDDEN for a non-admin */
export async function listJobs(session: Session, limit: number): Promise<ApiResponse<JobView[]>> {
  return session.api.request<JobView[]>({ path: `${API_PREFIX}/admin/jobs`, query: { limit } });
}

/** GET /admin/jobs/{id}. @throws CliError NOT_FOUND for an unknown id */
export async function getJob(session: Session, id: string): Promise<ApiResponse<JobView>> {
  return session.api.request<JobView>({ path: `${API_PREFIX}/admin/jobs/${encodeURIComponent(id)}` });
}

/** How long following a job waits out an unreachable or busy daemon by default. */
export const DEFAULT_RETRY_FOR_MS = 10 * 60_000;
/** Longest pause between two tries while the daemon is busy. */
const MAX_BACKOFF_MS = 4_000;

/** Options of followJob. */
export interface FollowOptions {
  /** Called with every polled view (the caller decides what changed). */
  onUpdate(view: JobView): void;
  /** Told `daemon busy, retrying in 4 s` while an outage is waited out, and null once the daemon answers again. */
  onBusy?(message: string | null): void;
  /** Poll interval (default 300 ms). */
  intervalMs?: number;
  /** Stops following (the job keeps running). */
  signal?: AbortSignal;
  /** How long an outage is waited out before giving up (default 10 minutes). */
  retryForMs?: number;
}

const TRANSIENT_CODES = new Set([
  'SERVICE_UNAVAILABLE', 'TIMEOUT', 'UNREACHABLE', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET',
]);

/** True for a failure that may pass by itself: no connection, a timeout, 502/503/504. */
export function isTransientError(err: unknown): boolean {
  if (!(err instanceof CliError)) return false;
  return (err.status !== undefined && [502, 503, 504].includes(err.status)) || TRANSIENT_CODES.has(err.code);
}

/** Waits `ms` unless `signal` aborts. @throws CliError CANCELLED when it does */
async function pause(ms: number, id: string, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    throw stoppedFollowing(id);
  }
}

/**
 * Poll a job until it completes or fails and return the last answer. Connection errors,
 * 502/503/504 and transient `unknown` states are retried with backoff (0.5 s doubling to
 * 4 s) for up to `retryForMs` in a row; `onBusy` hears about each wait.
 * @throws CliError CANCELLED when `signal` aborts; the last transient error once the outage
 *   outlasts `retryForMs`; other API errors at once (e.g. NOT_FOUND when the job was removed)
 */
export async function followJob(session: Session, id: string, options: FollowOptions): Promise<ApiResponse<JobView>> {
  const intervalMs = options.intervalMs ?? 300;
  const retryForMs = options.retryForMs ?? DEFAULT_RETRY_FOR_MS;
  let outageSince: number | null = null;
  let tries = 0;
  for (;;) {
    if (options.signal?.aborted) throw stoppedFollowing(id);
    let problem: CliError;
    try {
      const res = await getJob(session, id);
      if (res.data.state !== 'unknown') {
        if (outageSince !== null) options.onBusy?.(null);
        outageSince = null;
        tries = 0;
        options.onUpdate(res.data);
        if (FINISHED_STATES.includes(res.data.state)) return res;
        await pause(intervalMs, id, options.signal);
        continue;
      }
      problem = new CliError({ code: 'JOB_UNKNOWN', message: `job ${id} is in no known state (removed from the queue?)` });
    } catch (err) {
      if (!isTransientError(err)) throw err;
      problem = err as CliError;
    }
    outageSince ??= Date.now();
    if (Date.now() - outageSince >= retryForMs) throw problem;
    const wait = backoffMs(tries++);
    options.onBusy?.(busyText(wait));
    await pause(wait, id, options.signal);
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
