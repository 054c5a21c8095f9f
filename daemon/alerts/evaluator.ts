/**
 * The alert evaluator: keeps every active alert in memory, indexed by stock code, and
 * checks the alerts of each ticked stock on every tick (no database read per tick).
 *
 * State machine of one alert:
 * - armed and the condition is met and the cooldown has passed → fire: a one-shot alert
 *   becomes inactive; a recurring one is disarmed;
 * - disarmed and the condition is false → re-armed (so a price that stays above the
 *   threshold fires once, not on every tick).
 * Exactly once across instances: the durable record is the claim. A firing of generation
 * g (the alert's g-th firing) is inserted into alert_events, whose UNIQUE (alert_id,
 * generation) key lets exactly one insert win however many instances evaluate the same
 * tick; only the winner publishes it on the market bus (which delivers it to the owner's
 * sockets, and from which restoring sessions get it — or from alert_events itself). The
 * losers re-read the alert and advance their local state the same way. Nothing is
 * claimed outside the database, so a crash cannot leave a claimed-but-unrecorded firing:
 * an unrecorded firing is retried by the next tick that meets the condition. A crash
 * between the record and the publish leaves the firing in the history and in the replay
 * of sessions restored within 5 minutes, but not pushed to sockets that stayed open.
 *
 * Changes made through the API on any instance, firings and re-arms reach the others as a
 * pub/sub message on ALERTS_CHANNEL carrying the alert id; each instance then reloads that
 * one alert. So the state stays shared whether every instance evaluates every tick (from
 * the bus) or each tick is evaluated only by the instance that applied it (the feed hook).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../infra/clock.js';
import type { Notifier } from '../infra/notifier.js';
import type { AlertEvent, MarketEvent, PriceEvent } from '../kernel/events.js';
import type { PriceAlertType } from '../kernel/alert-types.js';
import { isScreenAlertType } from '../kernel/alert-types.js';
import type { Alert, AlertFiringRecord, AlertsRepo } from '../store/alerts-repo.js';
import { AlertIndex } from './alert-index.js';
import { alertMessage, conditionMet } from './alert-rules.js';
import { AverageVolumeCache } from './average-volume.js';

/** Pub/sub channel (under the deployment prefix) announcing a changed alert id. */
export const ALERTS_CHANNEL = 'alerts';

/** The bus event (spec `alert` message) of a recorded firing (a screen alert's names its preset). */
export function alertEventOf(r: AlertFiringRecord): AlertEvent {
  return {
    type: 'alert', user_id: r.user_id, alert_id: r.alert_id, event_id: r.id, code: r.code, alert_type: r.alert_type,
    threshold: r.threshold, current_price: r.price, message: r.message, ts: r.fired_at,
    ...(r.preset_id ? { preset_id: r.preset_id } : {}),
  };
}

/** A price alert: on one stock, with a threshold. */
export type PriceAlert = Alert & { code: string; threshold: number; alert_type: PriceAlertType };

/** True for a price alert (the screen alerts have their own evaluator). */
export function isPriceAlert(alert: Alert): alert is PriceAlert {
  return !isScreenAlertType(alert.alert_type) && alert.code !== null && alert.threshold !== null;
}

/** A firing this instance recorded. */
export interface AlertFiring {
  event_id: string;
  alert_id: string;
  user_id: string;
  code: string;
  generation: number;
  price: number;
  message: string;
  fired_at: number;
}

/** Collaborators of the evaluator. */
export interface AlertEvaluatorDeps {
  alerts: Pick<AlertsRepo, 'listActive' | 'getById' | 'recordFiring' | 'rearm'>;
  /** Publish a firing to the owner's sockets (MarketBus.publish). */
  publish(event: AlertEvent): Promise<unknown>;
  /** Cross-instance invalidation; without it the evaluator only sees its own instance's changes. */
  notifier?: Pick<Notifier, 'publish' | 'subscribe'>;
  /** 20-day average volume of the given codes (codes without history are absent). */
  averageVolumes(codes: readonly string[]): Promise<Map<string, number>>;
  clock: Clock;
  logger: Logger;
}

/** The evaluator. */
export interface AlertEvaluator {
  /** Load the active alerts and averages, and listen for changes from other instances. */
  start(): Promise<void>;
  /** Evaluate the alerts of the ticked stocks; resolves with the firings this instance recorded. */
  onTick(events: readonly MarketEvent[]): Promise<AlertFiring[]>;
  /** After a write through this instance's API: reload locally and tell the other instances. Never throws. */
  changed(alertId: string): Promise<void>;
  /** Re-read one alert from the database (add, update or drop it). */
  reload(alertId: string): Promise<void>;
  /** Reload the 20-day average volumes (after a new indicator snapshot). */
  refreshAverages(): Promise<void>;
  /** Alerts and stock codes in the index. */
  size(): { alerts: number; codes: number };
  /** Resolves once the firings in flight are recorded and published (or failed): shutdown, tests. Never rejects. */
  drain(): Promise<void>;
  /** The in-memory state of one alert (undefined when not indexed): for diagnostics and tests. */
  inspect(alertId: string): { alert: Readonly<PriceAlert>; armed: boolean; generation: number; lastFiredMs: number | null } | undefined;
}

interface Entry {
  alert: PriceAlert;
  armed: boolean;
  /** Generation of the next firing. */
  generation: number;
  lastFiredMs: number | null;
}

/** Create the evaluator (nothing is loaded until start()). */
export function createAlertEvaluator(deps: AlertEvaluatorDeps): AlertEvaluator {
  return new PriceAlerts(deps);
}

const fromRow = (alert: PriceAlert): Entry => ({ alert, armed: alert.armed, generation: alert.fire_count, lastFiredMs: alert.last_fired_at });

/** The indexed alerts, their averages and the firings in flight. */
class PriceAlerts implements AlertEvaluator {
  private readonly index = new AlertIndex<Entry>();
  private readonly averages: AverageVolumeCache;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: AlertEvaluatorDeps) {
    this.averages = new AverageVolumeCache(deps.averageVolumes, deps.logger);
  }

  async start(): Promise<void> {
    const { deps } = this;
    for (const alert of await deps.alerts.listActive()) if (isPriceAlert(alert)) this.index.add(fromRow(alert));
    await this.refreshAverages();
    deps.notifier?.subscribe(ALERTS_CHANNEL, (id) => {
      this.reload(id).catch((err: Error) => deps.logger.error({ err, alert: id }, 'alert reload failed'));
    });
    const { alerts, codes } = this.index.size();
    deps.logger.info({ alerts, codes }, 'alert evaluator started');
  }

  async onTick(events: readonly MarketEvent[]): Promise<AlertFiring[]> {
    const inFlight: Promise<AlertFiring | null>[] = [];
    const now = this.deps.clock.now();
    for (const e of events) {
      if (e.type !== 'price') continue;
      const list = this.index.ofCode(e.code);
      if (!list) continue;
      // Safe to iterate while firing: drop() replaces the code's list rather than editing it.
      for (const entry of list) {
        const firing = this.evaluate(entry, e, now);
        if (firing) inFlight.push(firing);
      }
    }
    if (inFlight.length === 0) return [];
    return (await Promise.all(inFlight)).filter((f): f is AlertFiring => f !== null);
  }

  async changed(id: string): Promise<void> {
    const { logger, notifier } = this.deps;
    await this.reload(id).catch((err: Error) => logger.error({ err, alert: id }, 'alert reload failed'));
    await notifier?.publish(ALERTS_CHANNEL, id).catch((err: Error) => logger.warn({ err: err.message }, 'alert change not broadcast'));
  }

  async reload(id: string): Promise<void> {
    const row = await this.deps.alerts.getById(id);
    const entry = this.index.get(id);
    if (!row || !row.active || !isPriceAlert(row)) {
      if (entry) this.index.drop(entry);
      return;
    }
    if (!entry) this.index.add(fromRow(row));
    else if (row.fire_count > entry.generation) Object.assign(entry, fromRow(row)); // fired elsewhere, unseen here
    else {
      // Same generation: a disarm is only ever written with a firing we have already applied,
      // so the database can only add an arm (a user's edit or a persisted re-arm). Ahead of the
      // database (our firing is not recorded yet): keep the runtime state.
      entry.alert = row;
      if (row.fire_count === entry.generation) entry.armed ||= row.armed;
    }
    if (row.alert_type === 'volume_above' && !this.averages.has(row.code)) await this.averages.load([row.code]);
  }

  refreshAverages(): Promise<void> {
    const volumeCodes = new Set<string>();
    for (const e of this.index.entries()) if (e.alert.alert_type === 'volume_above') volumeCodes.add(e.alert.code);
    return this.averages.load([...volumeCodes]);
  }

  size(): { alerts: number; codes: number } {
    return this.index.size();
  }

  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  inspect(id: string): ReturnType<AlertEvaluator['inspect']> {
    const e = this.index.get(id);
    return e && { alert: e.alert, armed: e.armed, generation: e.generation, lastFiredMs: e.lastFiredMs };
  }

  /** Advance one alert on one tick; returns a firing in flight, if any. */
  private evaluate(entry: Entry, e: PriceEvent, now: number): Promise<AlertFiring | null> | null {
    const { alert } = entry;
    if (!conditionMet(alert.alert_type, alert.threshold, e, this.averages.get(alert.code))) {
      if (!entry.armed && alert.recurring) this.rearm(entry);
      return null;
    }
    if (!entry.armed) return null;
    if (entry.lastFiredMs !== null && now - entry.lastFiredMs < alert.cooldown_s * 1000) return null;
    const generation = entry.generation;
    const previous = entry.lastFiredMs;
    Object.assign(entry, { armed: false, generation: generation + 1, lastFiredMs: now });
    if (!alert.recurring) this.index.drop(entry);
    const firing = this.fire(entry, generation, previous, e, now);
    this.inFlight.add(firing);
    const done = () => void this.inFlight.delete(firing);
    firing.then(done, done);
    return firing;
  }

  /** A disarmed recurring alert whose condition is false again is armed, here and (shared) in the database. */
  private rearm(entry: Entry): void {
    const { deps } = this;
    const { alert } = entry;
    entry.armed = true;
    // Shared, so that an instance which did not see this tick re-arms too.
    deps.alerts
      .rearm(alert.id, entry.generation)
      .then(() => deps.notifier?.publish(ALERTS_CHANNEL, alert.id))
      .catch((err: Error) => deps.logger.warn({ err: err.message, alert: alert.id }, 'alert re-arm not shared'));
  }

  /** Claim, record and publish one firing of generation `generation`. */
  private async fire(entry: Entry, generation: number, previousFired: number | null, e: PriceEvent, now: number): Promise<AlertFiring | null> {
    const { deps } = this;
    const { alert } = entry;
    const avg = this.averages.get(alert.code);
    const message = alertMessage(alert, e, avg);
    const record: AlertFiringRecord = {
      id: randomUUID(), alert_id: alert.id, user_id: alert.user_id, generation, code: alert.code, alert_type: alert.alert_type,
      threshold: alert.threshold, price: e.price, change_percent: e.change_percent, volume: e.volume, message, fired_at: now,
      preset_id: null, claim: '',
    };
    try {
      // The claim: the UNIQUE (alert_id, generation) insert of one instance wins.
      if (!(await deps.alerts.recordFiring(record))) {
        // Recorded by another instance, or deleted or deactivated meanwhile: resynchronise.
        await this.reload(alert.id).catch(() => undefined);
        return null;
      }
    } catch (err) {
      // Unknown outcome (it may have committed): a retry of the same generation cannot record it twice.
      deps.logger.error({ err, alert: alert.id }, 'alert firing could not be recorded; retrying on a later tick');
      this.revert(entry, generation, previousFired);
      return null;
    }
    const event = alertEventOf(record);
    await deps.publish(event).catch((err: Error) => deps.logger.error({ err, alert: alert.id }, 'alert recorded but not published'));
    await deps.notifier?.publish(ALERTS_CHANNEL, alert.id).catch(() => undefined);
    return { event_id: record.id, alert_id: alert.id, user_id: alert.user_id, code: alert.code, generation, price: e.price, message, fired_at: now };
  }

  /** Undo a firing that could not be recorded, so a later tick retries it. */
  private revert(entry: Entry, generation: number, lastFiredMs: number | null): void {
    if (entry.generation !== generation + 1) return;
    Object.assign(entry, { generation, armed: true, lastFiredMs });
    if (!this.index.has(entry.alert.id)) this.index.add(entry);
  }
}
