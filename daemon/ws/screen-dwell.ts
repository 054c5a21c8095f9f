/**
 * The dwell of a live screen subscription (`dwell_s` on the subscribe): the engine shares one
 * screen between identical queries, so the dwell sits between the shared screen and one
 * subscriber. A `Dwell` keeps the members as the subscriber has been told them and the changes
 * not told yet; a change is told once it has held for the dwell, one that goes back before is
 * dropped. One `DwellSweeper` serves every dwelling subscription of a hook; its timer runs only
 * while some change is waiting.
 */
import { MAX_LIVE_SCREEN_DWELL_S } from '../contract/ws.js';
import type { Clock } from '../infra/clock.js';
import type { LiveMemberRow, LiveScreenChange } from '../live/engine.js';
import type { LiveSubscription } from '../live/live-service.js';

/** How often waiting changes are checked against their dwell. */
const SWEEP_MS = 250;

/** The members a dwelling subscriber has been told, and the changes it has not been told yet. */
export interface Dwell {
  ms: number;
  told: Set<string>;
  /** Code → when its membership started to differ from `told`. */
  waiting: Map<string, number>;
  /** Tell the changes that have held (undefined until `subscribed` is out). */
  flush?: (now: number) => void;
}

/** A subscribe's `dwell_s`: whole seconds within bounds, or the field's complaint. */
export function dwellOf(raw: unknown): { ok: true; seconds: number } | { ok: false; message: string } {
  if (raw === undefined || raw === null) return { ok: true, seconds: 0 };
  if (typeof raw !== 'number' || !Number.isInteger(raw)) return { ok: false, message: 'must be whole seconds' };
  if (raw < 0 || raw > MAX_LIVE_SCREEN_DWELL_S) return { ok: false, message: `must be from 0 to ${MAX_LIVE_SCREEN_DWELL_S} (an hour)` };
  return { ok: true, seconds: raw };
}

/** One stock's membership as the shared screen now has it: start its wait, or drop it when it went back. */
function mark(d: Dwell, code: string, member: boolean, at: number): void {
  if (d.told.has(code) === member) d.waiting.delete(code);
  else if (!d.waiting.has(code)) d.waiting.set(code, at);
}

/** A change from the shared screen, as seen by a dwelling subscriber: start or drop waiting changes. */
function observe(d: Dwell, change: LiveScreenChange, at: number): void {
  for (const code of change.exited) mark(d, code, false, at);
  for (const row of change.entered) mark(d, row.code, true, at);
}

/** The changes of `d` that have held for its dwell, as one screen_update's body (null when none). */
export function dueChange(d: Dwell, sub: LiveSubscription, at: number): LiveScreenChange | null {
  const codes = [...d.waiting].filter(([, since]) => at - since >= d.ms).map(([code]) => code);
  if (codes.length === 0) return null;
  for (const code of codes) d.waiting.delete(code);
  const entering = new Set(codes.filter((c) => !d.told.has(c)));
  // A waiting entry is a member now (had it left, its wait would have been dropped): its row is current.
  const entered: LiveMemberRow[] = entering.size > 0 ? sub.members().filter((m) => entering.has(m.code)) : [];
  const exited = codes.filter((c) => d.told.has(c));
  for (const code of exited) d.told.delete(code);
  for (const row of entered) d.told.add(row.code);
  return { entered, exited, count: d.told.size, total: sub.total() };
}

/**
 * The dwelling subscriptions with a change waiting, and the one timer that sweeps them.
 * `isHolding` says when the engine holds membership changes (prices stale): nothing is told then.
 */
export class DwellSweeper {
  private readonly waiting = new Set<Dwell>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly isHolding: () => boolean,
  ) {}

  /** Tell the waiting changes whose dwell is over (an arrow: the timer calls it detached). */
  readonly sweep = (): void => {
    if (this.isHolding()) return;
    const at = this.clock.now();
    for (const d of [...this.waiting]) {
      d.flush?.(at);
      if (d.waiting.size === 0) this.waiting.delete(d);
    }
    this.stopWhenIdle();
  };

  /** A change from the shared screen reached `d`: keep it swept while some change waits. */
  observe(d: Dwell, change: LiveScreenChange, at: number): void {
    observe(d, change, at);
    if (d.waiting.size === 0) return;
    this.waiting.add(d);
    if (this.timer === undefined) {
      this.timer = setInterval(this.sweep, SWEEP_MS);
      this.timer.unref();
    }
  }

  /** A subscription ended (`d`, its dwell when it had one). */
  forget(d: Dwell | undefined): void {
    if (d) this.waiting.delete(d);
    this.stopWhenIdle();
  }

  private stopWhenIdle(): void {
    if (this.waiting.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
