/**
 * Shared types of the load-test kit: the report (rows of metric, target, measured value and
 * verdict), progress events for a live view, and what a scenario receives from the runner.
 */
import type { ResolvedOptions } from './options.js';
import type { Session } from './session.js';
import type { TickSource } from './ws/tick-source.js';

/** Comparison of a target (the measured value must satisfy `measured <op> value`). */
export type TargetOp = '<' | '<=' | '>' | '>=' | '==';

/** A target a metric must meet; `source` says where the number comes from. */
export interface Target {
  op: TargetOp;
  value: number;
  /**
   * `spec`: "Other limits and targets"; `correctness`: what a correct server must do;
   * `issue`: a target one of our issues sets beyond the spec (engine time, limiter cost, bench wall time).
   */
  source: 'spec' | 'correctness' | 'issue';
}

/** One line of the report. `pass` is null when the metric has no target or was not evaluable. */
export interface ReportRow {
  scenario: string;
  metric: string;
  target: Target | null;
  measured: number | null;
  unit: string;
  pass: boolean | null;
  /** Why a verdict is what it is (run failed, scale below the target, figure unavailable…). */
  note?: string;
}

/** How a scenario ended. */
export type ScenarioStatus = 'pass' | 'fail' | 'info' | 'error' | 'skipped' | 'aborted';

/** Per-scenario outcome. */
export interface ScenarioSummary {
  scenario: string;
  status: ScenarioStatus;
  started_at: string;
  duration_s: number;
  /** The error that ended the scenario, or why it was skipped. */
  message?: string;
  /** Scenario-specific settings actually used (connections, rate, mode…). */
  settings: Record<string, unknown>;
}

/** The result of a load-test run (also the `--json` output). */
export interface Report {
  url: string;
  started_at: string;
  finished_at: string;
  aborted: boolean;
  /** false when any row failed or a scenario errored; true when some row passed and none failed; null otherwise. */
  pass: boolean | null;
  environment: Environment;
  options: Record<string, unknown>;
  scenarios: ScenarioSummary[];
  rows: ReportRow[];
  /** Things about the setup worth knowing (e.g. the bench user kept its default tier). */
  notes: string[];
}

/** Where the generator ran. */
export interface Environment {
  node: string;
  platform: string;
  cpus: number;
  memory_mb: number;
  /** Soft open-file limit of the generator process (null when unknown). */
  open_files_limit: number | null;
}

/** Progress of a run, for a live view (Ink) or a log. */
export type ProgressEvent =
  | { type: 'run-start'; scenarios: string[] }
  | { type: 'scenario-start'; scenario: string; index: number; total: number }
  | { type: 'phase'; scenario: string; phase: string; detail?: string }
  | {
      type: 'tick';
      scenario: string;
      /** Seconds into the current phase and its planned length (both 0 while clients connect). */
      elapsed_s: number;
      planned_s: number;
      requests_per_s?: number;
      messages_per_s?: number;
      connections?: number;
      /** Failed requests (non-2xx, timeouts, socket errors) or connections so far in this phase. */
      failed?: number;
    }
  | { type: 'scenario-end'; scenario: string; status: ScenarioStatus; rows: ReportRow[]; message?: string }
  | { type: 'run-end'; pass: boolean | null; aborted: boolean };

/** Listener of progress events (must not throw; errors are ignored). */
export type ProgressListener = (event: ProgressEvent) => void;

/** What a scenario gets from the runner. */
export interface ScenarioContext {
  /** Base URL of the target, e.g. http://127.0.0.1:8000 (no trailing slash). */
  url: string;
  options: ResolvedOptions;
  session: Session;
  signal: AbortSignal;
  progress(event: DistributiveOmit<Extract<ProgressEvent, { scenario: string }>, 'scenario'>): void;
  /** Record scenario settings for the summary. */
  settings(values: Record<string, unknown>): void;
  /** A tick source given by the caller (tests, embedding); else the WebSocket scenarios pick one. */
  tickSource?: TickSource;
}

/** Omit over each member of a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A load-test scenario. */
export interface Scenario {
  name: string;
  /** One line for `--help` and the live view. */
  description: string;
  run(ctx: ScenarioContext): Promise<ReportRow[]>;
}
