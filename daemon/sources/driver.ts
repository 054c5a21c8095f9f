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
  /** Records written once per run after its units (KRX: listing dates, English names), or null. @throws ProviderError */
  fetchExtras?(unit: string, signal?: AbortSignal): Promise<RecordsBatch | null>;
  /** One call per service: does the key and each approval work. Never throws for a provider failure. */
  test(nowMs: number): Promise<SourceTestResult>;
  close(): Promise<void>;
}
