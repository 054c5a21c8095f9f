/**
 * Data sources on the wire: GET /admin/sources (status of every source, whether it runs as
 * jobs or as a live feed), POST /admin/sources/{source}/test and POST /admin/sources/{source}/sync.
 * A source that is not a job (a real-time feed) registers a status provider of its own; its
 * status has the same shape. Each shape is one zod schema: the routes validate and document
 * with it, and its type is what the daemon produces and the CLI reads.
 */
import { z } from 'zod';
import { calendarDate } from './fields.js';

/** What a source delivers: end-of-day market data, financial statements, or a live feed. */
export const SOURCE_KINDS = ['eod', 'financials', 'realtime'] as const;
/** A source's kind. */
export type SourceKind = (typeof SOURCE_KINDS)[number];

/**
 * The last error a source met (`at`: ISO timestamp), with the provider's own code (KRX `401`,
 * OpenDART `020`, KIS `EGW00201`) or ours (`HTTP_503`, `TIMEOUT`, `EMPTY`, `BAD_ANSWER`, `QUOTA`) and message.
 */
export const SourceError = z.object({ at: z.string(), code: z.string().describe("the provider's code or ours"), message: z.string() });
export type SourceError = z.output<typeof SourceError>;

/**
 * GET /admin/sources: one source. `configured`: its key (or base URL) is set, it can run;
 * `last_success_at`: when a run last finished without an error; `last_success_date`: the latest
 * trading date (for a feed, the latest day) whose data it delivered; `calls_today`: calls made to
 * the provider today (KST), across every daemon; `stale_reason`: why it is stale (null when not).
 */
export const SourceStatus = z.object({
  name: z.string(), kind: z.enum(SOURCE_KINDS), configured: z.boolean(),
  last_success_at: z.string().nullable(), last_success_date: z.string().nullable(), last_error: SourceError.nullable(),
  calls_today: z.number().int(), stale: z.boolean().describe('older than the trading calendar says it should be'), stale_reason: z.string().nullable(),
}).meta({ id: 'SourceStatus' });
export type SourceStatus = z.output<typeof SourceStatus>;

/**
 * One check of POST /admin/sources/{source}/test: one service (endpoint) of the provider, e.g.
 * `sto/stk_bydd_trd`, called once; `code`: the provider's or ours, null when it answered.
 */
export const SourceCheck = z.object({ service: z.string(), ok: z.boolean(), code: z.string().nullable(), message: z.string(), apply_for: z.string().nullable().describe('the service to apply for at the provider when the key is not approved for it') });
export type SourceCheck = z.output<typeof SourceCheck>;

/** POST /admin/sources/{source}/test: one call per service — does the key and each approval work. */
export const SourceTestResult = z.object({ name: z.string(), ok: z.boolean(), checks: z.array(SourceCheck) }).meta({ id: 'SourceTestResult' });
export type SourceTestResult = z.output<typeof SourceTestResult>;

/**
 * Body of POST /admin/sources/{source}/sync (dates YYYY-MM-DD; `to` defaults to the last published
 * trading day). `compute`: recompute indicators after the run (default true); `replace_sample`:
 * the database holds the generated sample market, remove it in the first date's transaction.
 */
export const SourceSyncBody = z.strictObject({
  from: calendarDate().optional(),
  to: calendarDate().optional(),
  compute: z.boolean().default(true),
  replace_sample: z.boolean().default(false),
});
/** The body as the daemon reads it (defaults filled in). */
export type SourceSyncBody = z.output<typeof SourceSyncBody>;
/** The body as a client sends it. */
export type SourceSyncInput = z.input<typeof SourceSyncBody>;

/**
 * What a sync job returned (JobResult.sync): `total` units the run covers (trading dates, or
 * companies for OpenDART); `loaded` written (new, or changed since the last run: a correction);
 * `unchanged` fetched again with the same content; `resumed` already done by an earlier attempt
 * of this job; `calls` provider calls made by this job.
 */
export const SourceSyncSummary = z.object({
  source: z.string(), from: z.string(), to: z.string(), total: z.number().int(), loaded: z.number().int(), unchanged: z.number().int(),
  resumed: z.number().int(), calls: z.number().int(),
});
export type SourceSyncSummary = z.output<typeof SourceSyncSummary>;
