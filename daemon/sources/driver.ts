/**
 * The contract every job-run data source implements: what it calls a unit (a trading date),
 * how it fetches one (network only, no database), what the provider has published by a
 * given time (the default end of a backfill, and what staleness is measured against), and a
 * one-call-per-service test of the key.
 */
import type { SourceKind, SourceTestResult } from '../contract/sources.js';
import type { RecordsBatch } from '../market/market-data-service.js';
import type { LoadResult } from '../../loaders/types.js';

/** One unit as fetched: its records, split as the provider answered, and a hash of the answers. */
export interface FetchedUnit {
  unit: string;
  /** Records of the unit; the 5 % rule is decided over all of them together. */
  batches: LoadResult[];
  /** sha256 of the provider's answers: equal hashes mean the same content. */
  hash: string;
  /**
   * Parts fetched with the unit that a later run need not fetch again (OpenDART: the
   * company-quarters whose full statements came with it, each with its receipt number),
   * recorded in the unit's transaction under the source's parts ledger.
   */
  parts?: { unit: string; hash: string }[];
}

/** What a planned run starts from. */
export interface PlanContext {
  /** The stock codes the daemon holds (a unit for any other would be refused). */
  stored: ReadonlySet<string>;
  /** The source's parts ledger: every part recorded by earlier runs → its hash. */
  parts: ReadonlyMap<string, string>;
}

/** The source_dates name under which a source's parts are recorded. */
export function partsSource(source: string): string {
  return `${source}:parts`;
}

/** A run whose units come from the provider (OpenDART: the listed companies of its company list). */
export interface PlannedRun {
  /** The units, in the order they are fetched and committed (a resumed run goes on after the last committed one). */
  units: string[];
  /** Provider calls one unit may cost (the daily budget is checked before each unit). */
  callsPerUnit: number;
  /** Fetch one unit of this run. @throws ProviderError */
  fetchUnit(unit: string, signal?: AbortSignal): Promise<FetchedUnit>;
}

/** A data source run as BullMQ jobs. */
export interface SourceDriver {
  readonly name: string;
  readonly kind: SourceKind;
  /** Its key (or URL) is set. */
  readonly configured: boolean;
  /** Provider calls one unit costs (the daily budget is checked before each unit). */
  readonly callsPerUnit: number;
  /** The provider's daily call budget for this key. */
  readonly dailyCalls: number;
  /** The latest unit the provider has published at `nowMs` (KRX: the previous trading day, once its file is out). */
  lastPublished(nowMs: number): string;
  /** The latest unit that should be stored at `nowMs` (published, plus the time the daily run needs): older is stale. */
  expectedLatest(nowMs: number): string;
  /** The units from `from` to `to`, inclusive, in order. @throws AppError INVALID_REQUEST for a bad date */
  units(from: string, to: string): string[];
  /** Fetch one unit. @throws ProviderError */
  fetchUnit(unit: string, signal?: AbortSignal): Promise<FetchedUnit>;
  /**
   * The units of a run from `from` to `to` when they come from the provider instead of the calendar.
   * @throws ProviderError
   */
  plan?(from: string, to: string, context: PlanContext, signal?: AbortSignal): Promise<PlannedRun>;
  /** The range of a daily run when it is not "the published units not stored yet" (OpenDART: the latest quarters, every day). */
  scheduledRange?(nowMs: number): { from: string; to: string };
  /** Records written once per run after its units (KRX: listing dates, English names), or null. @throws ProviderError */
  fetchExtras?(unit: string, signal?: AbortSignal): Promise<RecordsBatch | null>;
  /** One call per service: does the key and each approval work. Never throws for a provider failure. */
  test(nowMs: number): Promise<SourceTestResult>;
  close(): Promise<void>;
}
