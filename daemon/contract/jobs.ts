/**
 * Market-data jobs and uploads on the wire: POST/GET /admin/jobs, POST /admin/uploads.
 * The daemon validates job requests with a zod schema (daemon/jobs/types.ts) whose output
 * must stay assignable to JobRequest here (checked at compile time there).
 */
import type { SourceSyncSummary } from './sources.js';

/** One file of a load-files job: a server-side path inside import_dirs, with optional hints. */
export interface JobFileSpec {
  path: string;
  /** A loader format (loaders/types.ts LOADER_FORMATS); detected when absent. */
  format?: string;
  /** Trade date YYYY-MM-DD of a one-day file. */
  date?: string;
  /** Stock code of a one-stock file. */
  code?: string;
}

/** One file of a load-files job named by the id POST /admin/uploads returned. */
export interface JobUploadSpec {
  upload: string;
  format?: string;
  date?: string;
  code?: string;
}

/** One input of a load-files job: a path string, a path with hints, or an upload. */
export type JobPathInput = string | JobFileSpec | JobUploadSpec;

/** A job request as the daemon keeps it (defaults filled in): the `data` of a job. */
export type JobRequest =
  | { type: 'load-files'; paths: JobPathInput[]; compute: boolean; replace_sample: boolean }
  | { type: 'load-sample'; seed: number; stocks?: number; days?: number; compute: boolean; replace: boolean }
  | { type: 'compute-indicators' }
  | SourceSyncRequest;

/**
 * A data-source run (POST /admin/sources/{source}/sync, or the daily schedule): dates `from`…`to`
 * (OpenDART: the listed companies, with the quarters that range asks for), each unit committed on
 * its own. `resume_after` is the last unit an earlier attempt of this same job committed (it goes
 * on after it); `scheduled` marks the daily run.
 */
export interface SourceSyncRequest {
  type: 'source-sync';
  source: string;
  from: string;
  to: string;
  compute: boolean;
  replace_sample: boolean;
  scheduled?: boolean;
  resume_after?: string;
}

/** Body of POST /admin/jobs as a client sends it (the server fills in defaults). */
export type JobRequestInput =
  | { type: 'load-files'; paths: JobPathInput[]; compute?: boolean; replace_sample?: boolean }
  | { type: 'load-sample'; seed?: number; stocks?: number; days?: number; compute?: boolean; replace?: boolean }
  | { type: 'compute-indicators' };

/** GET /admin/market: what the market tables hold (a load over the sample market needs a flag). */
export interface MarketStateView {
  /** The generated sample market, loaded files, or nothing yet. */
  content: 'sample' | 'files' | 'empty';
  /** Stocks stored. */
  stocks: number;
}

/** Progress of a running job. */
export interface JobProgress {
  /**
   * `sync`: a data source fetching and committing units (done/total count dates, or companies for OpenDART); `stage`: copying the
   * live market into the load's staged copy; `tidy`: dropping the market it replaced (after the commit).
   */
  phase: 'queued' | 'plan' | 'stage' | 'load' | 'sync' | 'index' | 'indicators' | 'tidy' | 'done';
  file?: string;
  done: number;
  total: number;
  rows_ok: number;
  rows_rejected: number;
  /** Provider calls made so far (data-source runs). */
  calls?: number;
  /** Set while a data-source run waits for the provider's daily quota to reset. */
  waiting_until?: string;
}

/** Outcome of one file of a load. */
export interface FileOutcome {
  file: string;
  format: string;
  rows_total: number;
  rows_ok: number;
  rows_rejected: number;
  rejected: { line: number; reason: string }[];
  skipped: { reason: string; count: number }[];
  written: { stocks: number; bars: number; halts: number; financials: number; index: number };
  unknown_codes: string[];
}

/** What a finished job returned. */
export interface JobResult {
  files: FileOutcome[];
  unrecognised: string[];
  rows_ok: number;
  rows_rejected: number;
  indicators: { version: string; as_of: string | null; stocks: number; duration_ms: number } | null;
  duration_ms: number;
  /** Data-source runs: what the run covered (each unit written is also one entry of `files`, named `krx:YYYY-MM-DD` or `dart:<stock code>`). */
  sync?: SourceSyncSummary;
}

/** BullMQ's job states (its JobState), plus the daemon's own two. */
export type JobState =
  | 'completed' | 'failed' | 'active' | 'delayed' | 'prioritized' | 'waiting' | 'waiting-children'
  | 'unknown'
  /** Still marked active but its worker stopped renewing the lock: it runs again from its start once a worker takes it. */
  | 'stalled';

/** A job as GET /admin/jobs and /admin/jobs/{id} show it. */
export interface JobView {
  id: string;
  type: JobRequest['type'];
  state: JobState;
  data: JobRequest;
  progress: JobProgress | null;
  result: JobResult | null;
  failed_reason: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  requested_by: string | null;
}

/** What the daemon recorded for one upload (POST /admin/uploads). */
export interface UploadInfo {
  id: string;
  name: string;
  size: number;
  sha256: string;
  created_at: string;
}
