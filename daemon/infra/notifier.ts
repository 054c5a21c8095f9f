/**
 * Cross-instance notifications over Redis pub/sub (e.g. "new indicator snapshot
 * version"): each daemon subscribes on its own connection and reacts locally.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { dropRedis, type RedisFactory } from './redis.js';

/** Publish/subscribe on named channels under the deployment prefix. */
export interface Notifier {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): void;
  /** Resolves once Redis has confirmed every subscription made so far (or refused it). */
  ready(): Promise<void>;
  /** Open the subscriber connection and subscribe what was asked so far (a deferred notifier only); idempotent. */
  start(): void;
  close(): Promise<void>;
}

/** Options of createNotifier. */
export interface NotifierOptions {
  /** Subscriptions wait for start() (a daemon's build runs nothing); default false: the first subscribe opens the connection. */
  deferred?: boolean;
}

/** Create the notifier (the subscriber connection opens on first subscribe, or at start() when deferred). */
export function createNotifier(redis: RedisFactory, publisher: Redis, logger: Logger, options: NotifierOptions = {}): Notifier {
  let sub: Redis | undefined;
  let started = !options.deferred;
  const handlers = new Map<string, ((m: string) => void)[]>();
  const confirmations: Promise<unknown>[] = [];
  const listen = (full: string) => {
    if (!sub) {
      sub = redis.connect('subscriber', 'notify');
      sub.on('message', (ch: string, msg: string) => {
        for (const h of handlers.get(ch) ?? []) {
          try {
            h(msg);
          } catch (err) {
            logger.error({ err, channel: ch }, 'notification handler failed');
          }
        }
      });
    }
    // Not awaited: with Redis down this would wait for the reconnect; ioredis resubscribes by itself.
    confirmations.push(sub.subscribe(full).catch((err: Error) => logger.warn({ err: err.message, channel: full }, 'subscribe failed')));
  };
  return {
    async publish(channel, message) {
      await publisher.publish(redis.key('notify', channel), message);
    },
    subscribe(channel, handler) {
      const full = redis.key('notify', channel);
      handlers.set(full, [...(handlers.get(full) ?? []), handler]);
      if (started) listen(full);
    },
    start() {
      if (started) return;
      started = true;
      for (const full of handlers.keys()) listen(full);
    },
    async ready() {
      await Promise.all(confirmations);
    },
    async close() {
      if (sub) dropRedis(sub);
    },
  };
}
