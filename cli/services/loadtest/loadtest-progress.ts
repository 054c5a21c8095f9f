/**
 * How a running load test is shown: the state a live view renders, folded from the kit's
 * progress events (scenario, phase, elapsed of planned seconds, the last second's req/s or
 * msg/s, connections, failures so far, finished scenarios), and the plain stderr lines used
 * when the view is not drawn (piped output, --json). Pure.
 */
import type { ProgressEvent, ScenarioStatus } from '../../../loadtest/index.js';
import { groupThousands } from '../output/number-format.js';

/** A finished scenario. */
export interface FinishedScenario {
  scenario: string;
  status: ScenarioStatus;
  message?: string;
}

/** The scenario being run. */
export interface CurrentScenario {
  scenario: string;
  /** 0-based position and count of scenarios in the run. */
  index: number;
  total: number;
  /** Raw phase name of the kit (`warmup`, `measure`, `connect`, …), null before the first. */
  phase: string | null;
  detail: string | null;
  elapsedS: number;
  plannedS: number;
  /** Answers (REST) or messages (WebSocket) in the last second, with its unit. */
  rate: number | null;
  rateUnit: 'req/s' | 'msg/s' | null;
  connections: number | null;
  failed: number | null;
}

/** Everything the live view shows. */
export interface LoadtestView {
  scenarios: string[];
  current: CurrentScenario | null;
  finished: FinishedScenario[];
  done: boolean;
}

/** The view before the run starts. */
export const EMPTY_LOADTEST_VIEW: LoadtestView = { scenarios: [], current: null, finished: [], done: false };

const PHASE_LABELS: Record<string, string> = { warmup: 'warm-up', measure: 'measure', connect: 'connect' };

/** People's name of a phase: `warmup` → `warm-up`; others as they are. */
export function phaseName(phase: string): string {
  return PHASE_LABELS[phase] ?? phase;
}

/** Fold one progress event into the view. */
export function reduceLoadtestView(view: LoadtestView, event: ProgressEvent): LoadtestView {
  switch (event.type) {
    case 'run-start':
      return { ...EMPTY_LOADTEST_VIEW, scenarios: [...event.scenarios] };
    case 'scenario-start':
      return {
        ...view,
        current: { scenario: event.scenario, index: event.index, total: event.total, phase: null, detail: null, elapsedS: 0, plannedS: 0, rate: null, rateUnit: null, connections: null, failed: null },
      };
    case 'phase':
      if (view.current?.scenario !== event.scenario) return view;
      // A new phase restarts the clock and the failure count (the kit counts per phase).
      return { ...view, current: { ...view.current, phase: event.phase, detail: event.detail ?? null, elapsedS: 0, plannedS: 0, rate: null, failed: null } };
    case 'tick': {
      const c = view.current;
      if (c?.scenario !== event.scenario) return view;
      const rate = event.requests_per_s ?? event.messages_per_s;
      return {
        ...view,
        current: {
          ...c,
          elapsedS: event.elapsed_s,
          plannedS: event.planned_s,
          ...(rate !== undefined ? { rate, rateUnit: event.requests_per_s !== undefined ? 'req/s' : 'msg/s' } : {}),
          ...(event.connections !== undefined ? { connections: event.connections } : {}),
          ...(event.failed !== undefined ? { failed: event.failed } : {}),
        },
      };
    }
    case 'scenario-end':
      return {
        ...view,
        current: view.current?.scenario === event.scenario ? null : view.current,
        finished: [...view.finished, { scenario: event.scenario, status: event.status, ...(event.message ? { message: event.message } : {}) }],
      };
    case 'run-end':
      return { ...view, current: null, done: true };
  }
}

/** `3.0 / 10 s` style elapsed text, or null when the phase has no planned length (connecting). */
export function elapsedText(c: Pick<CurrentScenario, 'elapsedS' | 'plannedS'>): string | null {
  if (c.plannedS <= 0) return null;
  return `${Math.min(c.elapsedS, c.plannedS).toFixed(1)} / ${formatSeconds(c.plannedS)} s`;
}

function formatSeconds(s: number): string {
  return Number.isInteger(s) ? String(s) : s.toFixed(1);
}

/** `1,234 req/s · 10 connections · 0 failed`: the figures of the current phase that are known. */
export function figuresText(c: CurrentScenario): string {
  const parts: string[] = [];
  if (c.rate !== null && c.rateUnit) parts.push(`${groupThousands(c.rate)} ${c.rateUnit}`);
  if (c.connections !== null) parts.push(`${groupThousands(c.connections)} connection${c.connections === 1 ? '' : 's'}`);
  if (c.failed !== null) parts.push(`${groupThousands(c.failed)} failed`);
  return parts.join(' · ');
}

/** One stderr line per scenario start, phase and end (no per-second lines when piped). */
export function progressLine(event: ProgressEvent): string | null {
  switch (event.type) {
    case 'scenario-start':
      return `▶ ${event.scenario} (${event.index + 1}/${event.total})`;
    case 'phase':
      return `  ${event.scenario}: ${phaseName(event.phase)}${event.detail ? ` (${event.detail})` : ''}`;
    case 'scenario-end':
      return `■ ${event.scenario}: ${event.status}${event.message ? ` — ${event.message}` : ''}`;
    default:
      return null;
  }
}

/** Receives progress events: a live Ink view on a terminal, lines otherwise. */
export interface LoadtestProgressSink {
  update(event: ProgressEvent): void;
  /** Draw the last state and stop; idempotent. */
  close(): Promise<void>;
}

/** A sink writing `progressLine`s to `out`. */
export function createLoadtestLineSink(out: { write(text: string): unknown }): LoadtestProgressSink {
  return {
    update(event) {
      const line = progressLine(event);
      if (line) out.write(line + '\n');
    },
    close: async () => undefined,
  };
}
