/**
 * The current market status for a connection (a client must not wait hours for
 * the next transition to learn whether its market trades). After a `subscribe` that adds
 * targets, and after `reconnected`, the connection is sent a `market_status` message with
 * the current status of each market its targets belong to — the market itself for a
 * `market` subscription, the stock's market for `stock`, the markets of the sector's
 * member stocks for `sector` — once per market per connection (a restore announces them
 * again). Transitions later reach every connection with a subscription (hub.ts).
 */
import type { MarketStatusEvent } from '../kernel/events.js';
import { serverMessages, type OutMessage, type SubscriptionType } from './protocol.js';
import type { Universe } from './subscriptions.js';

/** The markets that `targets` of `type` belong to. */
export function marketsOfTargets(universe: Universe, type: SubscriptionType, targets: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const target of targets) {
    if (type === 'market') out.add(target);
    else if (type === 'stock') {
      const market = universe.marketOf?.(target);
      if (market) out.add(market);
    } else {
      for (const code of universe.members?.('sector', target) ?? []) {
        const market = universe.marketOf?.(code);
        if (market) out.add(market);
        if (out.size === universe.markets.length) break;
      }
    }
  }
  return out;
}

/**
 * `market_status` messages for the markets in `markets` not yet in `announced` (which is
 * updated). Empty when the gateway has no market clock.
 */
export function statusMessages(current: (() => MarketStatusEvent[]) | undefined, markets: Iterable<string>, announced: Set<string>): OutMessage[] {
  if (!current) return [];
  const wanted = new Set([...markets].filter((m) => !announced.has(m)));
  if (wanted.size === 0) return [];
  const out: OutMessage[] = [];
  for (const event of current()) {
    if (!wanted.has(event.market)) continue;
    announced.add(event.market);
    out.push(serverMessages.marketStatus(event));
  }
  return out;
}
