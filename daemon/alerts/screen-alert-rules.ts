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
  /** Before the engine evaluates the tick with bus id `id`: `flush` applies a pending snapshot swap first. */
  beforeTick(id: string, flush: () => void): void;
  /** After every subscriber of the bus has handled the tick. */
  afterTick(): void;
  /** `tick:<bus id>` while a tick is evaluated, else `snapshot:<version>` (a swap noticed by a timer or a subscription). */
  cause(): string;
}

/**
 * Create the tracker. The bus calls its subscribers in order, synchronously, for each event:
 * `beforeTick` runs in a subscriber registered before the live engine's, `afterTick` in one
 * registered after it, so every diff the engine delivers in between is the tick's. A snapshot
 * swap is flushed before the tick, so its diffs are attributed to the snapshot whichever way
 * each daemon noticed it.
 */
export function createScreenAlertCauses(snapshotVersion: () => string): ScreenAlertCauses {
  let tick: string | null = null;
  return {
    beforeTick(id, flush) {
      tick = null;
      flush();
      tick = id;
    },
    afterTick() {
      tick = null;
    },
    cause: () => (tick === null ? `snapshot:${snapshotVersion()}` : `tick:${tick}`),
  };
}
