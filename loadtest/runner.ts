/**
 * `runLoadtest(options, hooks)`: validate the options, refuse non-loopback targets unless
 * allowed, then run the chosen scenarios one after another, each under a time bound, and
 * return the report. Ctrl-C (the hooks' AbortSignal) stops the current scenario cleanly —
 * its partial figures are kept, marked aborted — and skips the rest. A scenario that throws
 * is reported as an error and the run goes on.
 */
import { availableParallelism, platform, totalmem } from 'node:os';
import { createApiClient } from './api.js';
import { readFdLimits } from './fd-limit.js';
import { checkTarget } from './guard.js';
import { resolveOptions, type LoadtestOptions, type ResolvedOptions, type ScenarioName } from './options.js';
import { runVerdict, scenarioStatus } from './report.js';
import { SCENARIOS } from './scenarios/index.js';
import { AbortedError } from './scenarios/ws-common.js';
import { createSession, type Session } from './session.js';
import type { Environment, ProgressListener, Report, ReportRow, ScenarioContext, ScenarioSummary } from './types.js';
import type { TickSource } from './ws/tick-source.js';

/** Callbacks and injections of a run. */
export interface LoadtestHooks {
  onProgress?: ProgressListener;
  /** Abort (e.g. on SIGINT) to stop the run cleanly. */
  signal?: AbortSignal;
  /** Tick source for the WebSocket scenarios (tests, embedding); default: chosen per run. */
  tickSource?: TickSource;
}

/** Seconds a scenario may take beyond its warm-up and measurement (setup, connects, teardown). */
export function scenarioBoundSeconds(name: ScenarioName, o: ResolvedOptions): number {
  const base = o.warmup + o.duration + 120;
  if (name === 'ws-fanout') return base + o.wsConnections / 20;
  if (name === 'ws-reconnect-storm') return base + o.storm.downtime + o.stormWindow + o.stormClients / 10;
  return base;
}

function redact(o: ResolvedOptions): Record<string, unknown> {
  const { token, adminToken, admin, ...rest } = o;
  return { ...rest, token: token ? '(given)' : null, admin: admin || adminToken ? '(given)' : null };
}

async function environment(): Promise<Environment> {
  const fd = await readFdLimits();
  return {
    node: process.version,
    platform: platform(),
    cpus: availableParallelism(),
    memory_mb: Math.round(totalmem() / 2 ** 20),
    open_files_limit: fd && Number.isFinite(fd.soft) ? fd.soft : null,
  };
}

interface RunState {
  url: string;
  options: ResolvedOptions;
  session: Session;
  hooks: LoadtestHooks;
  emit: ProgressListener;
}

async function runOne(state: RunState, name: ScenarioName, index: number): Promise<{ summary: ScenarioSummary; rows: ReportRow[] }> {
  const { options, hooks, emit } = state;
  const scenario = SCENARIOS[name];
  const boundS = scenarioBoundSeconds(name, options);
  const bound = AbortSignal.timeout(Math.ceil(boundS * 1000));
  const signal = hooks.signal ? AbortSignal.any([hooks.signal, bound]) : bound;
  const settings: Record<string, unknown> = {};
  const ctx: ScenarioContext = {
    url: state.url, options, session: state.session, signal, tickSource: hooks.tickSource,
    progress: (event) => emit({ ...event, scenario: name } as Parameters<ProgressListener>[0]),
    settings: (values) => Object.assign(settings, values),
  };
  const startedAt = new Date();
  const t0 = performance.now();
  emit({ type: 'scenario-start', scenario: name, index, total: options.scenarios.length });
  let rows: ReportRow[] = [];
  let error: unknown;
  try {
    rows = await scenario.run(ctx);
  } catch (err) {
    error = err;
  }
  const aborted = hooks.signal?.aborted === true;
  let message = error instanceof Error ? error.message : error === undefined ? undefined : String(error);
  if (bound.aborted && !aborted) message = `exceeded its time bound of ${Math.round(boundS)} s${message && !(error instanceof AbortedError) ? ` (${message})` : ''}`;
  if (error === undefined && bound.aborted && !aborted) error = new Error(message);
  const status = scenarioStatus(rows, error, aborted);
  const summary: ScenarioSummary = {
    scenario: name, status, started_at: startedAt.toISOString(), duration_s: (performance.now() - t0) / 1000, settings,
    ...(message !== undefined ? { message } : aborted ? { message: 'stopped by the user' } : {}),
  };
  emit({ type: 'scenario-end', scenario: name, status, rows, ...(summary.message ? { message: summary.message } : {}) });
  return { summary, rows };
}

/**
 * Run a load test and return its report (never throws for a failing scenario).
 * @throws AppError INVALID_REQUEST for bad options or a non-loopback target without allowRemote
 */
export async function runLoadtest(input: LoadtestOptions, hooks: LoadtestHooks = {}): Promise<Report> {
  const options = resolveOptions(input);
  const url = checkTarget(options.url, options.allowRemote);
  const emit: ProgressListener = (event) => {
    try {
      hooks.onProgress?.(event);
    } catch {
      // a broken view must not break the run
    }
  };
  const session = createSession(createApiClient(url), options, hooks.signal ?? new AbortController().signal);
  const state: RunState = { url, options, session, hooks, emit };
  const startedAt = new Date().toISOString();
  emit({ type: 'run-start', scenarios: options.scenarios });
  const scenarios: ScenarioSummary[] = [];
  const rows: ReportRow[] = [];
  for (const [i, name] of options.scenarios.entries()) {
    if (hooks.signal?.aborted) {
      scenarios.push({ scenario: name, status: 'skipped', started_at: new Date().toISOString(), duration_s: 0, settings: {}, message: 'run stopped before it' });
      continue;
    }
    const one = await runOne(state, name, i);
    scenarios.push(one.summary);
    rows.push(...one.rows);
  }
  const aborted = hooks.signal?.aborted === true;
  const pass = runVerdict(scenarios, rows);
  emit({ type: 'run-end', pass, aborted });
  return {
    url, started_at: startedAt, finished_at: new Date().toISOString(), aborted, pass,
    environment: await environment(), options: redact(options), scenarios, rows, notes: [...session.notes],
  };
}
