/**
 * Alerts on screens, the pure parts: the message of a firing, and the cause a membership
 * change is attributed to (the claim of a firing is `<code>@<cause>`, the same on every daemon).
 */
import type { ScreenAlertType } from '../kernel/alert-types.js';

const number = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const signed = (n: number) => `${n > 0 ? '+' : ''}${number(n)}`;

/** The human message, e.g. `Samsung Electronics (005930) entered the screen "Momentum" at 72,000 (+3.1%)`. */
export function screenAlertMessage(
  alert: { alert_type: ScreenAlertType; note?: string | null },
  presetName: string,
  code: string,
  quote: { name: string; price: number | null; change_percent: number | null } | null,
): string {
  const who = quote ? `${quote.name} (${code})` : code;
  const verb = alert.alert_type === 'screen_enter' ? 'entered' : 'left';
  const at = quote?.price == null ? '' : ` at ${number(quote.price)}${quote.change_percent == null ? '' : ` (${signed(quote.change_percent)}%)`}`;
  const text = `${who} ${verb} the screen "${presetName}"${at}`;
  return alert.note ? `${text} — ${alert.note}` : text;
}

/** Tracks what caused the membership changes the live engine delivers right now. */
export interface ScreenAlertCauses {
  /**
   * Run `evaluate` (the live engine applying the event with bus id `id`) with every change it
   * delivers attributed to that event; the cause is the snapshot again afterwards, even if it throws.
   */
  during<T>(id: string, evaluate: () => T): T;
  /** `tick:<bus id>` while an event is evaluated, else `snapshot:<version>` (a swap applied between events). */
  cause(): string;
}

/**
 * Create the tracker. The tick pipeline (daemon/wiring/tick-pipeline.ts) evaluates each bus
 * event inside `during`, so the cause is set by the call that evaluates the event, not by the
 * order of anyone's subscriptions. A snapshot swap is applied when it happens, between events
 * (never inside one), so its changes are the snapshot's on every daemon, whenever each swapped.
 */
export function createScreenAlertCauses(snapshotVersion: () => string): ScreenAlertCauses {
  let tick: string | null = null;
  return {
    during(id, evaluate) {
      tick = id;
      try {
        return evaluate();
      } finally {
        tick = null;
      }
    },
    cause: () => (tick === null ? `snapshot:${snapshotVersion()}` : `tick:${tick}`),
  };
}
