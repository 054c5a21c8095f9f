/**
 * Wall time of a bench run, step by step (`npm run bench` fits a 2-core machine in
 * under 10 minutes): each step is timed as it runs, and the rows put the total against that
 * target (judged on the full plan only; a quick run proves nothing about it).
 */
import { ISSUE_TARGETS, makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';

/** One timed step. */
export interface StepTime {
  step: string;
  seconds: number;
}

/** Wall time of the whole run and of each step. */
export interface BenchTiming {
  total_s: number;
  steps: StepTime[];
}

/** Times steps of a run. */
export interface StepClock {
  /** Run `body` as step `name` (timed even when it throws). */
  step<T>(name: string, body: () => Promise<T>): Promise<T>;
  /** Seconds since the clock was made, and each step so far. */
  timing(): BenchTiming;
}

/** Start a clock now; `now` is injectable for tests (ms). */
export function createStepClock(now: () => number = () => performance.now()): StepClock {
  const started = now();
  const steps: StepTime[] = [];
  return {
    async step(name, body) {
      const t0 = now();
      try {
        return await body();
      } finally {
        steps.push({ step: name, seconds: (now() - t0) / 1000 });
      }
    },
    timing: () => ({ total_s: (now() - started) / 1000, steps: [...steps] }),
  };
}

/** Rows of the timing (scenario `bench wall time`); the total is judged against < 600 s on the full plan. */
export function timingRows(t: BenchTiming, plan: 'full' | 'quick' | 'tiny', cpus: number): ReportRow[] {
  const S = 'bench wall time';
  const judgement =
    plan !== 'full' ? { notEvaluated: `${plan} plan: the 10-minute target is for the full plan` }
    : cpus > 2 ? { note: `measured on ${cpus} cores; the target is for 2` }
    : {};
  return [
    ...t.steps.map((s) => makeRow(S, s.step, s.seconds, 's')),
    makeRow(S, 'total', t.total_s, 's', ISSUE_TARGETS.benchWallTimeS, judgement),
  ];
}

/** `7 min 12 s`, `48 s`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}
