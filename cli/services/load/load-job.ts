/**
 * The shared flow of `load` and `load sample`: enqueue the job, optionally follow it
 * (a live Ink bar on a terminal, one stderr line per change otherwise), then print the
 * job: the final GET /admin/jobs/{id} body with --json, a summary otherwise. A failed
 * job is an error (exit 1) carrying the worker's reason.
 */
import type { JobRequestInput, JobView } from '../../../daemon/contract/jobs.js';
import type { ApiResponse } from '../transport/api-client.js';
import { createLineSink, createSnapshotter, type ProgressSink, type ProgressSnapshot } from './job-progress.js';
import { jobFilesTable, jobRecord, jobWarnings } from './job-rows.js';
import { describeRequest, enqueueJob, followJob, jobFailedError } from './jobs.js';
import { printTable } from '../output/print-table.js';
import type { Session } from '../session/session.js';

/** Options of runLoadJob. */
export interface LoadJobOptions {
  /** Follow the job until it finishes (default: when stdout is a terminal). */
  wait?: boolean;
  /** Stops following (the job keeps running). */
  signal?: AbortSignal;
  /** Poll interval while following (default 300 ms). */
  intervalMs?: number;
  /** How long an unreachable or busy daemon is waited out while following (default 10 minutes). */
  retryForMs?: number;
}

async function progressSink(session: Session): Promise<ProgressSink> {
  if (session.out.mode === 'tty' && session.io.stderr.isTTY) return session.views.jobProgress(session.io.stderr, session.out.color);
  return createLineSink(session.io.stderr);
}

/** Print a job: the API body with --json; a record and its files on a TTY; one TSV row when piped. */
export function printJob(session: Session, res: ApiResponse<JobView>): void {
  session.out.record(res.body, jobRecord(res.data));
  if (session.out.mode === 'tty' && res.data.result?.files.length) {
    session.io.stdout.write('\n');
    printTable(session, res.body, jobFilesTable(res.data));
  }
}

/**
 * Enqueue `request`, follow it when asked, print the outcome and return the exit code.
 * @throws CliError JOB_FAILED (exit 1) for a failed job, CANCELLED when following was interrupted
 */
export async function runLoadJob(session: Session, request: JobRequestInput, options: LoadJobOptions = {}): Promise<number> {
  const queued = await enqueueJob(session, request, options.retryForMs, (busy) => busy && session.out.info(busy));
  const id = queued.data.id;
  // On a terminal people watch (also with --json, which then prints the finished job); scripts get the id at once.
  const wait = options.wait ?? session.io.stdout.isTTY === true;
  if (!wait) {
    printJob(session, queued);
    session.out.info(`enqueued job ${id} (${describeRequest(request)}); follow it with \`stockscreen jobs show ${id}\``);
    return 0;
  }
  session.out.info(`job ${id}: ${describeRequest(request)}`);
  return followAndPrint(session, id, options);
}

/**
 * Follow job `id` with the progress view until it finishes, waiting out outages,
 * then print it; the exit code is 0 for a completed job.
 * @throws CliError JOB_FAILED for a failed job, CANCELLED when following was interrupted
 */
export async function followAndPrint(session: Session, id: string, options: Omit<LoadJobOptions, 'wait'> = {}): Promise<number> {
  const sink = await progressSink(session);
  const snapshot = createSnapshotter();
  let last: ProgressSnapshot | null = null;
  let final: ApiResponse<JobView>;
  try {
    final = await followJob(session, id, {
      onUpdate: (view) => sink.update((last = snapshot(view))),
      onBusy: (busy) => {
        if (last) sink.update((last = { ...last, busy }));
        else if (busy) session.out.info(busy);
      },
      signal: options.signal, intervalMs: options.intervalMs, retryForMs: options.retryForMs,
    });
  } finally {
    sink.close();
  }
  if (final.data.state === 'failed') {
    if (session.out.mode === 'json') session.out.json(final.body);
    throw jobFailedError(final.data);
  }
  printJob(session, final);
  for (const line of jobWarnings(final.data)) session.out.info(line);
  return 0;
}
