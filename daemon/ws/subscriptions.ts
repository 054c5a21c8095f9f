/**
 * A connection's subscriptions and the validation of subscribe requests against the
 * known universe and the limits (at most 50 targets per request and 200
 * subscriptions per connection, both configurable). Pure: no sockets, no Redis.
 */
import { SUBSCRIPTION_TYPES, type SubscriptionMap, type SubscriptionType } from './protocol.js';

/** What can be subscribed to; asked synchronously on every subscribe. */
export interface Universe {
  hasStock(code: string): boolean;
  hasSector(name: string): boolean;
  /** Market names, e.g. ['KOSPI', 'KOSDAQ']. */
  readonly markets: readonly string[];
  /** The market of a stock (market status on subscribe). */
  marketOf?(code: string): string | undefined;
  /** Stock codes of a market or sector (the snapshot after a truncated restore, market status of a sector). */
  members?(type: 'market' | 'sector', target: string): readonly string[];
}

/** Subscription limits. */
export interface SubscriptionLimits {
  maxTargetsPerRequest: number;
  maxSubscriptions: number;
}

/** The subscriptions of one connection. */
export interface SubscriptionSet {
  has(type: SubscriptionType, target: string): boolean;
  add(type: SubscriptionType, target: string): boolean;
  delete(type: SubscriptionType, target: string): boolean;
  /** Number of subscriptions of `type`, or of all types. */
  count(type?: SubscriptionType): number;
  /** Plain `{stock, market, sector}` lists (the wire shape). */
  toMap(): SubscriptionMap;
  entries(): Generator<[SubscriptionType, string]>;
}

/** Create an empty subscription set (optionally filled from a saved map). */
export function createSubscriptionSet(initial?: Partial<SubscriptionMap>): SubscriptionSet {
  const sets: Record<SubscriptionType, Set<string>> = { stock: new Set(), market: new Set(), sector: new Set() };
  const set: SubscriptionSet = {
    has: (type, target) => sets[type].has(target),
    add(type, target) {
      if (sets[type].has(target)) return false;
      sets[type].add(target);
      return true;
    },
    delete: (type, target) => sets[type].delete(target),
    count: (type) => (type ? sets[type].size : sets.stock.size + sets.market.size + sets.sector.size),
    toMap: () => ({ stock: [...sets.stock], market: [...sets.market], sector: [...sets.sector] }),
    *entries() {
      for (const type of SUBSCRIPTION_TYPES) for (const target of sets[type]) yield [type, target];
    },
  };
  for (const type of SUBSCRIPTION_TYPES) for (const target of initial?.[type] ?? []) set.add(type, target);
  return set;
}

/** Canonical spelling of a target (market names are upper-cased, others trimmed). */
export function normalizeTarget(type: SubscriptionType, target: string): string {
  const t = target.trim();
  return type === 'market' ? t.toUpperCase() : t;
}

/** Whether `target` exists in the universe. */
export function isKnownTarget(universe: Universe, type: SubscriptionType, target: string): boolean {
  if (type === 'stock') return universe.hasStock(target);
  if (type === 'sector') return universe.hasSector(target);
  return universe.markets.includes(target);
}

/** Outcome of a subscribe request before it is applied. */
export type SubscribePlan =
  | { ok: false; reason: 'too_many_targets' | 'subscription_limit'; message: string; details: Record<string, unknown> }
  | {
      ok: true;
      /** Valid targets (already subscribed or new), echoed in `subscribed`. */
      accepted: string[];
      /** The new ones among `accepted`. */
      added: string[];
      /** Unknown targets, reported in SUBSCRIPTION_FAILED. */
      unknown: string[];
    };

/**
 * Decide what a subscribe request does: unknown targets are rejected while the valid
 * ones still succeed; a request over either limit fails as a whole.
 */
export function planSubscribe(
  current: SubscriptionSet,
  type: SubscriptionType,
  targets: readonly string[],
  universe: Universe,
  limits: SubscriptionLimits,
): SubscribePlan {
  const unique = [...new Set(targets.map((t) => normalizeTarget(type, t)))];
  if (unique.length > limits.maxTargetsPerRequest) {
    return {
      ok: false,
      reason: 'too_many_targets',
      message: `At most ${limits.maxTargetsPerRequest} targets per request`,
      details: { reason: 'too_many_targets', subscription_type: type, requested: unique.length, max_targets_per_request: limits.maxTargetsPerRequest },
    };
  }
  const accepted: string[] = [];
  const unknown: string[] = [];
  for (const t of unique) (isKnownTarget(universe, type, t) ? accepted : unknown).push(t);
  const added = accepted.filter((t) => !current.has(type, t));
  if (current.count() + added.length > limits.maxSubscriptions) {
    return {
      ok: false,
      reason: 'subscription_limit',
      message: `At most ${limits.maxSubscriptions} subscriptions per connection`,
      details: {
        reason: 'subscription_limit',
        subscription_type: type,
        targets: added,
        current_subscriptions: current.count(),
        max_subscriptions: limits.maxSubscriptions,
      },
    };
  }
  return { ok: true, accepted, added, unknown };
}
