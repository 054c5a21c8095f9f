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
  watch(query: Record<string, unknown>, membership: ScreenMembership, listener: (change: ScreenChange) => void): ScreenWatch;
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

/** A change of one stock's membership not counted yet (its dwell is running). */
interface Pending {
  since: number;
  cause: string;
  rerun: boolean;
}

interface Entry {
  alert: ScreenAlert;
  presetName: string;
  watch: ScreenWatch;
  /** A one-shot alert that has fired here: it fires no more. */
  spent: boolean;
  /** The members as the alert counts them (baseline, then every change that held for the dwell). */
  counted: Set<string>;
  /** Stocks whose membership in the screen differs from `counted`, since when and why. */
  pending: Map<string, Pending>;
}

/** A change that counted: fire for it when it is the alert's kind. */
interface Counted {
  code: string;
  cause: string;
  rerun: boolean;
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
  let sweepTimer: NodeJS.Timeout | undefined;

  function drop(id: string): void {
    byId.get(id)?.watch.close();
    byId.delete(id);
  }

  async function record(entry: Entry, code: string, claim: string, rerun: boolean): Promise<void> {
    const { alert } = entry;
    // A whole list's change has no cause every daemon shares: the first daemon to see it fires it.
    if (rerun && deps.once && !(await deps.once(`screen-alert:${alert.id}:${code}:${alert.alert_type}`, RERUN_CLAIM_MS))) {
      if (!alert.recurring) await reload(alert.id);
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

  function fire(entry: Entry, changes: readonly Counted[]): void {
    if (changes.length === 0 || entry.spent) return;
    for (const { code, cause, rerun } of entry.alert.recurring ? changes : changes.slice(0, 1)) {
      if (!entry.alert.recurring) entry.spent = true;
      const firing = record(entry, code, `${code}@${cause}`, rerun).catch((err: Error) => logger.error({ err, alert: entry.alert.id }, 'screen alert firing failed'));
      inFlight.add(firing);
      void firing.finally(() => inFlight.delete(firing));
    }
  }

  /** Count the change of `code` (it held for the dwell): fire when it is the alert's kind. */
  function count(entry: Entry, code: string, out: Counted[]): void {
    const p = entry.pending.get(code);
    if (!p) return;
    entry.pending.delete(code);
    const entered = !entry.counted.has(code);
    if (entered) entry.counted.add(code);
    else entry.counted.delete(code);
    if (entered === (entry.alert.alert_type === 'screen_enter')) out.push({ code, cause: p.cause, rerun: p.rerun });
  }

  /** The screen says `code` is (not) a member now: a pending change starts, or ends when it went back. */
  function observe(entry: Entry, code: string, member: boolean, at: number, cause: string, rerun: boolean, out: Counted[]): void {
    if (entry.counted.has(code) === member) return void entry.pending.delete(code);
    if (!entry.pending.has(code)) entry.pending.set(code, { since: at, cause, rerun });
    if ((entry.alert.dwell_s ?? 0) === 0) count(entry, code, out);
  }

  function onChange(entry: Entry, change: ScreenChange): void {
    if (entry.spent || byId.get(entry.alert.id) !== entry) return;
    const at = deps.clock.now();
    const rerun = change.rerun === true;
    const cause = rerun ? `run:${at}` : deps.cause();
    const out: Counted[] = [];
    for (const code of change.exited) observe(entry, code, false, at, cause, rerun, out);
    for (const row of change.entered) observe(entry, row.code, true, at, cause, rerun, out);
    fire(entry, out);
  }

  function sweep(): void {
    const now = deps.clock.now();
    for (const entry of byId.values()) {
      if (entry.spent || entry.pending.size === 0) continue;
      const dwellMs = (entry.alert.dwell_s ?? 0) * 1000;
      const out: Counted[] = [];
      for (const [code, p] of [...entry.pending]) if (now - p.since >= dwellMs) count(entry, code, out);
      fire(entry, out);
    }
  }

  async function load(alert: ScreenAlert): Promise<void> {
    const preset = await deps.preset(alert.user_id, alert.preset_id);
    if (!preset) return drop(alert.id);
    const entry: Entry = { alert, presetName: preset.name, spent: false, watch: { close: () => undefined, codes: () => [] }, counted: new Set(), pending: new Map() };
    try {
      entry.watch = deps.watch(preset.query, membershipOf(alert), (change) => onChange(entry, change));
      entry.counted = new Set(entry.watch.codes());
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
    // Same preset and membership: keep the subscription (and its baseline), take the new settings.
    // A change of the preset's query comes through rewatchPreset, which drops the subscription first.
    if (current && current.alert.preset_id === row.preset_id && membershipOf(current.alert) === membershipOf(row)) {
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
      sweepTimer = setInterval(sweep, SWEEP_MS);
      sweepTimer.unref();
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
    sweep,
    close() {
      closed = true;
      if (sweepTimer !== undefined) clearInterval(sweepTimer);
      for (const id of [...byId.keys()]) drop(id);
    },
  };
}
