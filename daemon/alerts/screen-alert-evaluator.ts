/**
 * The screen alert evaluator: `screen_enter`/`screen_exit` alerts on a preset fire for each
 * stock that enters or exits the preset's live screen, read from this daemon's live-screen
 * engine (daemon/live). Every active screen alert holds one subscription on that engine; alerts
 * and live screens on the same query share one compiled screen and, for a screen on ranks,
 * scores or formula columns, one re-run (the engine's scheduler): nothing is evaluated for an
 * alert that the engine does not evaluate anyway, and no alert forces a re-run.
 *
 * Membership (per alert): `conditions` — the stock meets the preset's filters and expression,
 * wherever its sort puts it (the screen's page is every match); `page` — the stock is on the
 * preset's first page (its sort and per_page, a top-N cut). Dwell (`dwell_s`, per alert): a
 * change counts only once it has held that long; a stock that enters and leaves again within
 * it (two stocks swapping places at the edge of a top-N) never fires. 0: every change at once.
 *
 * Firing rules:
 * - The members when the alert is loaded (created, daemon start, preset or membership changed)
 *   are the baseline: no firing for them. A stock's membership as the alert counts it changes
 *   when the screen's has differed from it for `dwell_s`; each such change into the screen
 *   fires a screen_enter, out of it a screen_exit.
 * - One-shot: the first firing makes the alert inactive (several stocks at once: the first).
 * - Recurring: a stock fires again only after it has (counted as) left and entered again, and
 *   not within `cooldown_s` of its last firing for this alert (per stock, checked in the
 *   database so every daemon applies the same one).
 *
 * Exactly once across daemons: a firing is claimed in alert_events under UNIQUE (alert_id,
 * generation, claim), the claim being `<code>@<cause of the change>`. Every daemon reads the
 * same tick stream, so a per-row screen's change has the same cause everywhere: the bus id of
 * the tick (`tick:<id>`) or the new indicator snapshot (`snapshot:<version>`); a dwell delays
 * the firing, not its claim. A whole list's change comes from a re-run whose moment differs
 * from daemon to daemon (`run:<ms>`): such a firing first takes a short-lived key in Redis
 * (`once`), so the first daemon to see the change fires it and the others skip it. One insert
 * wins; only the winner publishes the `alert` message on the bus (the owner's sockets, session
 * replay) and tells the other daemons to reload the alert.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../infra/clock.js';
import type { Notifier } from '../infra/notifier.js';
import type { AlertEvent } from '../kernel/events.js';
import { isScreenAlertType, type ScreenAlertType } from '../kernel/alert-types.js';
import type { ScreenMembership } from '../contract/alerts.js';
import type { Alert, AlertsRepo, ScreenFiringRecord } from '../store/alerts-repo.js';
import { ALERTS_CHANNEL, alertEventOf } from './evaluator.js';
import { countDue, observeChange, type Counted, type CountedMembership } from './screen-alert-membership.js';
import { screenAlertMessage } from './screen-alert-rules.js';

/** Pub/sub channel (under the deployment prefix) announcing a changed or deleted preset id. */
export const SCREEN_ALERT_PRESETS_CHANNEL = 'screen-alert-presets';

/** A screen alert: on a preset, no stock, no threshold. */
export type ScreenAlert = Alert & { preset_id: string; alert_type: ScreenAlertType };

/** The membership an alert counts (rows from before membership existed: the page). */
const membershipOf = (alert: Alert): ScreenMembership => alert.membership ?? 'page';

/** What a firing reports about the stock. */
export interface StockQuote {
  name: string;
  price: number | null;
  change_percent: number | null;
  volume: number | null;
}

/** A membership change of a watched screen (the live engine's LiveScreenChange fits). */
export interface ScreenChange {
  entered: readonly { code: string }[];
  exited: readonly string[];
  /** A whole list's scheduled re-run caused it (no tick names it). */
  rerun?: boolean;
}

/** A subscription to a live screen. */
export interface ScreenWatch {
  close(): void;
  /** The members' codes as they stand (the baseline; re-runs nothing). */
  codes(): readonly string[];
}

/** How long a whole list's firing holds its key in Redis: longer than any two daemons' re-runs of one list lie apart. */
export const RERUN_CLAIM_MS = 60_000;
/** How often pending changes are checked against their dwell. */
const SWEEP_MS = 250;

/** Collaborators of the evaluator. */
export interface ScreenAlertEvaluatorDeps {
  alerts: Pick<AlertsRepo, 'listActive' | 'getById' | 'recordScreenFiring' | 'activeIdsOfPreset'>;
  /** The owner's preset, or null when it is gone. */
  preset(userId: string, presetId: string): Promise<{ name: string; query: Record<string, unknown> } | null>;
  /** Subscribe to the live screen of a saved query with `membership` (baseline: its members now). @throws AppError INVALID_REQUEST */
  watch(query: Record<string, unknown>, membership: ScreenMembership, listener: (change: ScreenChange) => void): ScreenWatch | Promise<ScreenWatch>;
  /** The stock's values in the live view (null for an unknown stock). */
  quote(code: string): StockQuote | null;
  /** The cause of a change delivered now (ScreenAlertCauses.cause). */
  cause(): string;
  /**
   * Take `key` for `ttlMs` unless another daemon holds it (Redis SET NX PX): false when taken.
   * Absent: always true (one daemon).
   */
  once?(key: string, ttlMs: number): Promise<boolean>;
  /** Publish a firing to the owner's sockets (MarketBus.publish). */
  publish(event: AlertEvent): Promise<unknown>;
  notifier?: Pick<Notifier, 'publish' | 'subscribe'>;
  clock: Clock;
  logger: Logger;
}

/** The evaluator. */
export interface ScreenAlertEvaluator {
  /** Load the active screen alerts and listen for changes from other daemons. */
  start(): Promise<void>;
  /** Re-read one alert (add, re-baseline, or drop it); ignores price alerts. Never throws. */
  reload(alertId: string): Promise<void>;
  /** A preset was changed or deleted through this daemon: reload its alerts here and on the other daemons. Never throws. */
  presetChanged(presetId: string): Promise<void>;
  /** Resolves once the firings in flight are recorded and published (or failed). Never rejects. */
  drain(): Promise<void>;
  /** Screen alerts watched here. */
  size(): number;
  /** Count the pending changes whose dwell is over (a timer does it every 250 ms; tests on a manual clock call it). */
  sweep(): void;
  /** Stop watching (shutdown); idempotent. */
  close(): void;
}

interface Entry extends CountedMembership {
  alert: ScreenAlert;
  presetName: string;
  watch: ScreenWatch;
  /** A one-shot alert that has fired here: it fires no more. */
  spent: boolean;
}

/** True for a screen alert. */
export function isScreenAlert(alert: Alert): alert is ScreenAlert {
  return isScreenAlertType(alert.alert_type) && alert.preset_id !== null;
}

/** Create the evaluator (nothing is watched until start()). */
export function createScreenAlertEvaluator(deps: ScreenAlertEvaluatorDeps): ScreenAlertEvaluator {
  return new ScreenAlerts(deps);
}

/**
 * The watched alerts (one entry and one screen subscription each), the firings in flight and the
 * reloads running; the sweep timer between start() and close().
 */
class ScreenAlerts implements ScreenAlertEvaluator {
  private readonly byId = new Map<string, Entry>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Per alert id: the reload running, so that reloads of one alert apply in order. */
  private readonly reloading = new Map<string, Promise<void>>();
  private closed = false;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ScreenAlertEvaluatorDeps) {}

  async start(): Promise<void> {
    const { deps } = this;
    for (const alert of await deps.alerts.listActive()) if (isScreenAlert(alert)) await this.load(alert).catch((err: Error) => deps.logger.error({ err, alert: alert.id }, 'screen alert not loaded'));
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweepTimer.unref();
    deps.notifier?.subscribe(ALERTS_CHANNEL, (id) => void this.reload(id));
    deps.notifier?.subscribe(SCREEN_ALERT_PRESETS_CHANNEL, (id) => void this.rewatchPreset(id));
    deps.logger.info({ alerts: this.byId.size }, 'screen alert evaluator started');
  }

  reload(id: string): Promise<void> {
    const next = (this.reloading.get(id) ?? Promise.resolve())
      .then(() => this.reloadNow(id))
      .catch((err: Error) => this.deps.logger.error({ err, alert: id }, 'screen alert reload failed'));
    this.reloading.set(id, next);
    void next.finally(() => this.reloading.get(id) === next && this.reloading.delete(id));
    return next;
  }

  async presetChanged(presetId: string): Promise<void> {
    await this.rewatchPreset(presetId);
    await this.deps.notifier?.publish(SCREEN_ALERT_PRESETS_CHANNEL, presetId).catch((err: Error) => this.deps.logger.warn({ err: err.message }, 'preset change not broadcast'));
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0 || this.reloading.size > 0) await Promise.allSettled([...this.inFlight, ...this.reloading.values()]);
  }

  size(): number {
    return this.byId.size;
  }

  sweep(): void {
    const now = this.deps.clock.now();
    for (const entry of this.byId.values()) {
      if (entry.spent || entry.pending.size === 0) continue;
      const out: Counted[] = [];
      countDue(entry, now, out);
      this.fire(entry, out);
    }
  }

  close(): void {
    this.closed = true;
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    for (const id of [...this.byId.keys()]) this.drop(id);
  }

  private drop(id: string): void {
    this.byId.get(id)?.watch.close();
    this.byId.delete(id);
  }

  private onChange(entry: Entry, change: ScreenChange): void {
    if (entry.spent || this.byId.get(entry.alert.id) !== entry) return;
    const at = this.deps.clock.now();
    const rerun = change.rerun === true;
    const cause = rerun ? `run:${at}` : this.deps.cause();
    const out: Counted[] = [];
    observeChange(entry, change, at, cause, rerun, out);
    this.fire(entry, out);
  }

  private fire(entry: Entry, changes: readonly Counted[]): void {
    if (changes.length === 0 || entry.spent) return;
    for (const { code, cause, rerun } of entry.alert.recurring ? changes : changes.slice(0, 1)) {
      if (!entry.alert.recurring) entry.spent = true;
      const firing = this.record(entry, code, `${code}@${cause}`, rerun).catch((err: Error) => this.deps.logger.error({ err, alert: entry.alert.id }, 'screen alert firing failed'));
      this.inFlight.add(firing);
      void firing.finally(() => this.inFlight.delete(firing));
    }
  }

  /** Claim, record and publish one firing (a one-shot alert that lost the claim is re-read). */
  private async record(entry: Entry, code: string, claim: string, rerun: boolean): Promise<void> {
    const { deps } = this;
    const { alert } = entry;
    // A whole list's change has no cause every daemon shares: the first daemon to see it fires it.
    if (rerun && deps.once && !(await deps.once(`screen-alert:${alert.id}:${code}:${alert.alert_type}`, RERUN_CLAIM_MS))) {
      if (!alert.recurring) await this.reload(alert.id);
      return;
    }
    const quote = deps.quote(code);
    const now = deps.clock.now();
    const record: ScreenFiringRecord = {
      id: randomUUID(), alert_id: alert.id, user_id: alert.user_id, claim, code, preset_id: alert.preset_id, alert_type: alert.alert_type,
      threshold: null, price: quote?.price ?? 0, change_percent: quote?.change_percent ?? null, volume: quote?.volume ?? null,
      message: screenAlertMessage(alert, entry.presetName, code, quote), fired_at: now,
    };
    try {
      // The claim: the UNIQUE (alert_id, generation, claim) insert of one daemon wins.
      if (!(await deps.alerts.recordScreenFiring(record, alert.cooldown_s * 1000))) {
        if (!alert.recurring) await this.reload(alert.id);
        return;
      }
    } catch (err) {
      // Not retried: the stock fires again at its next entry (exit).
      deps.logger.error({ err, alert: alert.id, code }, 'screen alert firing could not be recorded');
      entry.spent = false;
      return;
    }
    if (!alert.recurring) this.drop(alert.id);
    await deps.publish(alertEventOf({ ...record, generation: 0 })).catch((err: Error) => deps.logger.error({ err, alert: alert.id }, 'screen alert recorded but not published'));
    await deps.notifier?.publish(ALERTS_CHANNEL, alert.id).catch(() => undefined);
  }

  private async load(alert: ScreenAlert): Promise<void> {
    const preset = await this.deps.preset(alert.user_id, alert.preset_id);
    if (!preset) return this.drop(alert.id);
    const entry: Entry = { alert, presetName: preset.name, spent: false, watch: { close: () => undefined, codes: () => [] }, counted: new Set(), pending: new Map() };
    try {
      entry.watch = await this.deps.watch(preset.query, membershipOf(alert), (change) => this.onChange(entry, change));
      entry.counted = new Set(entry.watch.codes());
    } catch (err) {
      // A saved query is checked when saved; one that no longer compiles (a removed field) cannot be watched.
      this.deps.logger.warn({ err: (err as Error).message, alert: alert.id, preset: alert.preset_id }, 'screen alert: preset query not watchable');
      return this.drop(alert.id);
    }
    this.drop(alert.id);
    if (this.closed) return entry.watch.close();
    this.byId.set(alert.id, entry);
  }

  private async reloadNow(id: string): Promise<void> {
    const row = await this.deps.alerts.getById(id);
    if (!row || !row.active || !isScreenAlert(row)) return this.drop(id);
    const current = this.byId.get(id);
    // Same preset and membership: keep the subscription (and its baseline), take the new settings.
    // A change of the preset's query comes through rewatchPreset, which drops the subscription first.
    if (current && current.alert.preset_id === row.preset_id && membershipOf(current.alert) === membershipOf(row)) {
      current.alert = row;
      return;
    }
    await this.load(row);
  }

  /**
   * Re-baseline every alert on the preset (its query may have changed, or it was deleted); the
   * database's list too, so that an alert whose query could not be watched before is retried.
   */
  private async rewatchPreset(presetId: string): Promise<void> {
    const held = [...this.byId.values()].filter((e) => e.alert.preset_id === presetId).map((e) => e.alert.id);
    for (const id of held) this.drop(id);
    const stored = await this.deps.alerts.activeIdsOfPreset(presetId).catch((err: Error) => {
      this.deps.logger.error({ err, preset: presetId }, 'screen alerts of a preset not listed');
      return [];
    });
    await Promise.all([...new Set([...held, ...stored])].map((id) => this.reload(id)));
  }
}
