/**
 * Data sources on the wire: GET /admin/sources (status of every source, whether it runs as
 * jobs or as a live feed), POST /admin/sources/{source}/test and POST /admin/sources/{source}/sync.
 * A source that is not a job (a real-time feed) registers a status provider of its own; its
 * status has the same shape.
 */

/** What a source delivers: end-of-day market data, financial statements, or a live feed. */
export type SourceKind = 'eod' | 'financials' | 'realtime';

/** The last error a source met, with the provider's own code and message where it gave one. */
export interface SourceError {
  /** ISO timestamp. */
  at: string;
  /** The provider's code (KRX `401`, OpenDART `020`, KIS `EGW00201`) or ours (`HTTP_503`, `TIMEOUT`, `EMPTY`, `BAD_ANSWER`, `QUOTA`). */
  code: string;
  message: string;
}

/** GET /admin/sources: one source. */
export interface SourceStatus {
  name: string;
  kind: SourceKind;
  /** Its key (or base URL) is set: it can run. */
  configured: boolean;
  /** When a run last finished without an error (ISO timestamp), or null. */
  last_success_at: string | null;
  /** The latest trading date (or, for a feed, the latest day) whose data it delivered, or null. */
  last_success_date: string | null;
  last_error: SourceError | null;
  /** Calls made to the provider today (KST), across every daemon. */
  calls_today: number;
  /** Its latest data is older than the trading calendar says it should be. */
  stale: boolean;
  /** Why it is stale (null when it is not). */
  stale_reason: string | null;
}

/** One check of POST /admin/sources/{source}/test: one service (endpoint) of the provider, called once. */
export interface SourceCheck {
  /** The provider's service, e.g. `sto/stk_bydd_trd`. */
  service: string;
  ok: boolean;
  /** The provider's code or ours, null when it answered. */
  code: string | null;
  message: string;
  /** What the operator must apply for when the key is not approved for this service (null otherwise). */
  apply_for: string | null;
}

/** POST /admin/sources/{source}/test: one call per service — does the key and each approval work. */
export interface SourceTestResult {
  name: string;
  ok: boolean;
  checks: SourceCheck[];
}

/** Body of POST /admin/sources/{source}/sync (dates YYYY-MM-DD). */
export interface SourceSyncInput {
  from?: string;
  /** Default: the last trading day whose data is published. */
  to?: string;
  /** Recompute indicators after the run (default true). */
  compute?: boolean;
  /** The database holds the generated sample market: remove it in the first date's transaction. */
  replace_sample?: boolean;
}

/** What a sync job returned (JobResult.sync). */
export interface SourceSyncSummary {
  source: string;
  from: string;
  to: string;
  /** Units the run covers (trading dates, or companies for OpenDART). */
  total: number;
  /** Units written (new, or content changed since the last run: a correction). */
  loaded: number;
  /** Units fetched again with the same content: nothing written. */
  unchanged: number;
  /** Units already done by an earlier attempt of this job (a resumed run). */
  resumed: number;
  /** Provider calls made by this job. */
  calls: number;
}
