/**
 * One screen alert's membership as the alert counts it: the members counted (the baseline, then
 * every change that held for the alert's dwell) and the changes still pending. A stock whose
 * membership in the screen differs from the counted one is pending from that change; it counts
 * once it has held for `dwell_s` (at once with no dwell), and a change back before then cancels
 * it. What counts and is of the alert's kind (an entry for screen_enter, an exit for screen_exit)
 * is handed back for the evaluator to fire. No I/O, no timer: the evaluator sweeps.
 */
import type { Alert } from '../store/alerts-repo.js';

/** A change of one stock's membership not counted yet (its dwell is running). */
export interface Pending {
  since: number;
  cause: string;
  rerun: boolean;
}

/** A change that counted: fire for it when it is the alert's kind. */
export interface Counted {
  code: string;
  cause: string;
  rerun: boolean;
}

/** The counting state of one alert (the evaluator's entry carries it). */
export interface CountedMembership {
  /** Its kind and dwell are read at each change (a reload may replace the alert). */
  alert: Pick<Alert, 'alert_type' | 'dwell_s'>;
  /** The members as the alert counts them (baseline, then every change that held for the dwell). */
  counted: Set<string>;
  /** Stocks whose membership in the screen differs from `counted`, since when and why. */
  pending: Map<string, Pending>;
}

/** Count the change of `code` (it held for the dwell); `out` gets it when it is the alert's kind. */
function count(m: CountedMembership, code: string, out: Counted[]): void {
  const p = m.pending.get(code);
  if (!p) return;
  m.pending.delete(code);
  const entered = !m.counted.has(code);
  if (entered) m.counted.add(code);
  else m.counted.delete(code);
  if (entered === (m.alert.alert_type === 'screen_enter')) out.push({ code, cause: p.cause, rerun: p.rerun });
}

/** The screen says `code` is (not) a member now: a pending change starts, or ends when it went back. */
function observe(m: CountedMembership, code: string, member: boolean, at: number, cause: string, rerun: boolean, out: Counted[]): void {
  if (m.counted.has(code) === member) return void m.pending.delete(code);
  if (!m.pending.has(code)) m.pending.set(code, { since: at, cause, rerun });
  if ((m.alert.dwell_s ?? 0) === 0) count(m, code, out);
}

/** A membership change of the screen at `at`, from `cause`: `out` gets what counted at once (no dwell). */
export function observeChange(
  m: CountedMembership,
  change: { readonly entered: readonly { code: string }[]; readonly exited: readonly string[] },
  at: number,
  cause: string,
  rerun: boolean,
  out: Counted[],
): void {
  for (const code of change.exited) observe(m, code, false, at, cause, rerun, out);
  for (const row of change.entered) observe(m, row.code, true, at, cause, rerun, out);
}

/** Count the pending changes that have held for the dwell by `now`; `out` gets those of the alert's kind. */
export function countDue(m: CountedMembership, now: number, out: Counted[]): void {
  const dwellMs = (m.alert.dwell_s ?? 0) * 1000;
  for (const [code, p] of [...m.pending]) if (now - p.since >= dwellMs) count(m, code, out);
}
