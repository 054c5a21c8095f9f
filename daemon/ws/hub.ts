/**
 * Topics → local connections, and the fan-out of bus events: sector and
 * market subscriptions fan out the updates of their member stocks.
 *
 * Routing rules (the same rules decide what a restored session gets replayed):
 * - price / orderbook → subscribers of `stock:<code>`, `market:<market>` and `sector:<sector>`,
 *   each connection at most once even when several of its subscriptions match;
 * - market_status → every connection with at least one subscription. Transitions are
 *   rare (a few per market per day), the message names its market, and a stock watcher
 *   needs to know whether its market trades; this needs no code → market lookup;
 * - alert → only the connections authenticated as the alert's owner (`user:<id>`).
 * The message for an event is built once and shared by all its recipients.
 */
import type { MarketEvent } from '../kernel/events.js';
import { serverMessages, type OutMessage, type SubscriptionType } from './protocol.js';
import type { SubscriptionSet } from './subscriptions.js';

/** What the hub needs from a connection. */
export interface HubMember {
  /** Dispatch number of the last event delivered (dedupe across topics); owned by the hub. */
  lastDispatch: number;
  hasSubscriptions(): boolean;
  deliver(message: OutMessage): void;
}

/** The topic of a subscription. */
export function topicOf(type: SubscriptionType, target: string): string {
  return `${type}:${target}`;
}

/** The topic of a user's private events (alerts). */
export function userTopic(userId: string): string {
  return `user:${userId}`;
}

/** Local topic registry and event fan-out. */
export interface Hub {
  addMember(member: HubMember): void;
  /** Forget a member and leave the given topics. */
  removeMember(member: HubMember, topics: Iterable<string>): void;
  join(member: HubMember, topic: string): void;
  leave(member: HubMember, topic: string): void;
  /** Deliver one bus event to its local recipients; returns how many got it. */
  dispatch(streamId: string, event: MarketEvent): number;
  /** Number of topics with at least one member. */
  topicCount(): number;
  /** Connections per subscribed stock code (a real feed registers the most-watched codes for real-time trades). */
  stockWatchers(): Map<string, number>;
}

/** The server message for a bus event. */
export function messageForEvent(event: MarketEvent, streamId?: string): OutMessage {
  switch (event.type) {
    case 'price':
      return serverMessages.priceUpdate(event, streamId);
    case 'orderbook':
      return serverMessages.orderbookUpdate(event, streamId);
    case 'market_status':
      return serverMessages.marketStatus(event, streamId);
    case 'alert':
      return serverMessages.alert(event, streamId);
  }
}

/** Whether a connection with these subscriptions and user receives `event` (the hub's rules, for replay). */
export function isRelevant(event: MarketEvent, subs: SubscriptionSet, userId: string | null): boolean {
  switch (event.type) {
    case 'price':
    case 'orderbook':
      return subs.has('stock', event.code) || subs.has('market', event.market) || (event.sector !== null && subs.has('sector', event.sector));
    case 'market_status':
      return subs.count() > 0;
    case 'alert':
      return userId !== null && userId === event.user_id;
  }
}

function topicsOf(event: MarketEvent): string[] {
  switch (event.type) {
    case 'price':
    case 'orderbook': {
      const topics = [topicOf('stock', event.code), topicOf('market', event.market)];
      if (event.sector !== null) topics.push(topicOf('sector', event.sector));
      return topics;
    }
    case 'alert':
      return [userTopic(event.user_id)];
    case 'market_status':
      return [];
  }
}

/** Create an empty hub. */
export function createHub(): Hub {
  const topics = new Map<string, Set<HubMember>>();
  const members = new Set<HubMember>();
  let dispatchCount = 0;

  function leave(member: HubMember, topic: string): void {
    const set = topics.get(topic);
    if (!set) return;
    set.delete(member);
    if (set.size === 0) topics.delete(topic);
  }

  return {
    addMember: (member) => void members.add(member),
    removeMember(member, memberTopics) {
      members.delete(member);
      for (const topic of memberTopics) leave(member, topic);
    },
    join(member, topic) {
      let set = topics.get(topic);
      if (!set) topics.set(topic, (set = new Set()));
      set.add(member);
    },
    leave,
    dispatch(streamId, event) {
      const stamp = ++dispatchCount;
      let message: OutMessage | undefined;
      let delivered = 0;
      const send = (member: HubMember) => {
        if (member.lastDispatch === stamp) return;
        member.lastDispatch = stamp;
        member.deliver((message ??= messageForEvent(event, streamId)));
        delivered++;
      };
      if (event.type === 'market_status') {
        for (const member of members) if (member.hasSubscriptions()) send(member);
        return delivered;
      }
      for (const topic of topicsOf(event)) {
        const set = topics.get(topic);
        if (set) for (const member of set) send(member);
      }
      return delivered;
    },
    topicCount: () => topics.size,
    stockWatchers() {
      const out = new Map<string, number>();
      const prefix = topicOf('stock', '');
      for (const [topic, set] of topics) if (topic.startsWith(prefix)) out.set(topic.slice(prefix.length), set.size);
      return out;
    },
  };
}
