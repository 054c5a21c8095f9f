/**
 * The screen alert evaluator: `screen_enter`/`screen_exit` alerts on a preset fire
 * for each stock that enters or exits the preset's live screen, the very membership a live
 * screen subscriber sees (daemon/live: the preset's filters, sort and per_page on the live view).
 * Every active screen alert holds one subscription on this daemon's live-screen engine (alerts
 * on the same query share its compiled screen); nothing else is evaluated per tick.
 *
 * Firing rules:
 * - The members when the alert is loaded (created, daemon start, preset changed) are the
 *   baseline: no firing for them. Only later diffs fire, one firing per stock entering
 *   (screen_enter) or exiting (screen_exit), whether a tick or a new indicator snapshot moved it.
 * - One-shot: the first firing makes the alert inactive (several stocks in one diff: the first).
 * - Recurring: a stock fires again only after it has left and entered again (the diffs say so),
 *   and not within `cooldown_s` of its last firing for this alert (per stock, checked in the
 *   database so every daemon applies the same one).
 *
 * Exactly once across daemons: every daemon reads the same tick stream and sees the same diff.
 * A firing is claimed in alert_events under UNIQUE (alert_id, generation, claim), the claim
 * being `<code>@<cause>`: the cause is the bus id of the tick whose evaluation produced the diff,
 * or `snapshot:<version>` for a diff caused by a new indicator snapshot (the same on every
 * daemon). One insert wins; only the winner publishes the `alert` message on the bus (the
 * owner's sockets, session replay) and tells the other daemons to reload the alert.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../infra/clock.js';
import type { Notifier } from '../infra/notifier.js';
import type { AlertEvent } from '../kernel/events.js';
import { isScreenAlertType, type ScreenAlertType } from '../kernel/alert-types.js';
import type { Alert, AlertsRepo, ScreenFiringRecord } from '../store/alerts-repo.js';
import { ALERTS_CHANNEL, alertEventOf } from './evaluator.js';
import { screenAlertMessage } from './screen-alert-rules.js';

/** Pub/sub channel (under the deployment prefix) announcing a changed or deleted preset id. */
export const SCREEN_ALERT_PRESETS_CHANNEL = 'screen-alert-presets';

/** A screen alert: on a preset, no stock, no threshold. */
export type ScreenAlert = Alert & { preset_id: string; alert_type: ScreenAlertType };

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
}

/** A subscription to a live screen. */
export interface ScreenWatch {
  close(): void;
  /**
   * A screen whose members move with other stocks' prices (ranks, scores, formula columns): the
   * engine re-runs it on its own timer, at moments that differ from daemon to daemon, so its
   * alerts compare `codes()` at each second of the tick stream instead (see onSecond).
   */
  wholeList?: boolean;
  /** The members' codes now (brings a due re-run forward). */
  codes?(): readonly string[];
}

/** Collaborators of the evaluator. */
export interface ScreenAlertEvaluatorDeps {
  alerts: Pick<AlertsRepo, 'listActive' | 'getById' | 'recordScreenFiring' | 'activeIdsOfPreset'>;
  /** The owner's preset, or null when it is gone. */
  preset(userId: string, presetId: string): Promise<{ name: string; query: Record<string, unknown> } | null>;
  /** Subscribe to the live screen of a saved query (baseline: its members now). @throws AppError INVALID_REQUEST */
  watch(query: Record<string, unknown>, listener: (change: ScreenChange) => void): ScreenWatch;
  /** The stock's values in the live view (null for an unknown stock). */
  quote(code: string): StockQuote | null;
  /** The cause of a change delivered now (ScreenAlertCauses.cause). */
  cause(): string;
  /** Registers the evaluation of whole-list screens at each second of the tick stream (ScreenAlertCauses.onSecond). */
  onSecond?(listener: (second: number) => void): void;
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
  /** Stop watching (shutdown); idempotent. */
  close(): void;
}

interface Entry {
  alert: ScreenAlert;
  presetName: string;
  watch: ScreenWatch;
  /** A one-shot alert that has fired here: it fires no more. */
  spent: boolean;
  /** Whole-list screens: the members at the last second evaluated. */
  members?: Set<string>;
}

/** True for a screen alert. */
export function isScreenAlert(alert: Alert): alert is ScreenAlert {
  return isScreenAlertType(alert.alert_type) && alert.preset_id !== null;
}

/** Create the evaluator (nothing is watched until start()). */
export function createScreenAlertEvaluator(deps: ScreenAlertEvaluatorDeps): ScreenAlertEvaluator {
  const { logger } = deps;
  const byId = new Map<string, Entry>();
  const inFlight = new Set<Promise<unknown>>();
  /** Per alert id: the reload running, so that reloads of one alert apply in order. */
  const reloading = new Map<string, Promise<void>>();
  let closed = false;

  function drop(id: string): void {
    byId.get(id)?.watch.close();
    byId.delete(id);
  }

  async function record(entry: Entry, code: string, claim: string): Promise<void> {
    const { alert } = entry;
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
        if (!alert.recurring) await reload(alert.id);
        return;
      }
    } catch (err) {
      // Not retried: the stock fires again at its next entry (exit).
      logger.error({ err, alert: alert.id, code }, 'screen alert firing could not be recorded');
      entry.spent = false;
      return;
    }
    if (!alert.recurring) drop(alert.id);
    await deps.publish(alertEventOf({ ...record, generation: 0 })).catch((err: Error) => logger.error({ err, alert: alert.id }, 'screen alert recorded but not published'));
    await deps.notifier?.publish(ALERTS_CHANNEL, alert.id).catch(() => undefined);
  }

  function fire(entry: Entry, codes: readonly string[], cause: string): void {
    if (codes.length === 0) return;
    for (const code of entry.alert.recurring ? codes : codes.slice(0, 1)) {
      if (!entry.alert.recurring) entry.spent = true;
      const firing = record(entry, code, `${code}@${cause}`).catch((err: Error) => logger.error({ err, alert: entry.alert.id }, 'screen alert firing failed'));
      inFlight.add(firing);
      void firing.finally(() => inFlight.delete(firing));
    }
  }

  function onChange(entry: Entry, change: ScreenChange): void {
    if (entry.spent || entry.members || byId.get(entry.alert.id) !== entry) return;
    fire(entry, entry.alert.alert_type === 'screen_enter' ? change.entered.map((r) => r.code) : change.exited, deps.cause());
  }

  /**
   * A second of the tick stream ended: compare each whole-list screen's members with those of the
   * last second. Every daemon has applied the same ticks by then, so each finds the same changes
   * and claims them under the same `<code>@sec:<second>`.
   */
  function onSecond(second: number): void {
    for (const entry of byId.values()) {
      if (!entry.members || entry.spent || !entry.watch.codes) continue;
      const now = new Set(entry.watch.codes());
      const before = entry.members;
      entry.members = now;
      const codes = entry.alert.alert_type === 'screen_enter' ? [...now].filter((c) => !before.has(c)) : [...before].filter((c) => !now.has(c));
      fire(entry, codes, `sec:${second}`);
    }
  }

  async function load(alert: ScreenAlert): Promise<void> {
    const preset = await deps.preset(alert.user_id, alert.preset_id);
    if (!preset) return drop(alert.id);
    const entry: Entry = { alert, presetName: preset.name, spent: false, watch: { close: () => undefined } };
    try {
      entry.watch = deps.watch(preset.query, (change) => onChange(entry, change));
      if (entry.watch.wholeList && entry.watch.codes) entry.members = new Set(entry.watch.codes());
    } catch (err) {
      // A saved query is checked when saved; one that no longer compiles (a removed field) cannot be watched.
      logger.warn({ err: (err as Error).message, alert: alert.id, preset: alert.preset_id }, 'screen alert: preset query not watchable');
      return drop(alert.id);
    }
    drop(alert.id);
    if (closed) return entry.watch.close();
    byId.set(alert.id, entry);
  }

  async function reloadNow(id: string): Promise<void> {
    const row = await deps.alerts.getById(id);
    if (!row || !row.active || !isScreenAlert(row)) return drop(id);
    const current = byId.get(id);
    // Same preset: keep the subscription (and its baseline), take the new settings. A change of
    // the preset's query comes through rewatchPreset, which drops the subscription first.
    if (current && current.alert.preset_id === row.preset_id) {
      current.alert = row;
      return;
    }
    await load(row);
  }

  function reload(id: string): Promise<void> {
    const next = (reloading.get(id) ?? Promise.resolve())
      .then(() => reloadNow(id))
      .catch((err: Error) => logger.error({ err, alert: id }, 'screen alert reload failed'));
    reloading.set(id, next);
    void next.finally(() => reloading.get(id) === next && reloading.delete(id));
    return next;
  }

  /**
   * Re-baseline every alert on the preset (its query may have changed, or it was deleted); the
   * database's list too, so that an alert whose query could not be watched before is retried.
   */
  async function rewatchPreset(presetId: string): Promise<void> {
    const held = [...byId.values()].filter((e) => e.alert.preset_id === presetId).map((e) => e.alert.id);
    for (const id of held) drop(id);
    const stored = await deps.alerts.activeIdsOfPreset(presetId).catch((err: Error) => {
      logger.error({ err, preset: presetId }, 'screen alerts of a preset not listed');
      return [];
    });
    await Promise.all([...new Set([...held, ...stored])].map((id) => reload(id)));
  }

  return {
    async start() {
      for (const alert of await deps.alerts.listActive()) if (isScreenAlert(alert)) await load(alert).catch((err: Error) => logger.error({ err, alert: alert.id }, 'screen alert not loaded'));
      deps.onSecond?.(onSecond);
      deps.notifier?.subscribe(ALERTS_CHANNEL, (id) => void reload(id));
      deps.notifier?.subscribe(SCREEN_ALERT_PRESETS_CHANNEL, (id) => void rewatchPreset(id));
      logger.info({ alerts: byId.size }, 'screen alert evaluator started');
    },
    reload,
    async presetChanged(presetId) {
      await rewatchPreset(presetId);
      await deps.notifier?.publish(SCREEN_ALERT_PRESETS_CHANNEL, presetId).catch((err: Error) => logger.warn({ err: err.message }, 'preset change not broadcast'));
    },
    async drain() {
      while (inFlight.size > 0 || reloading.size > 0) await Promise.allSettled([...inFlight, ...reloading.values()]);
    },
    size: () => byId.size,
    close() {
      closed = true;
      for (const id of [...byId.keys()]) drop(id);
    },
  };
}
