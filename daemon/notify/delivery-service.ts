/**
 * Deliveries, step by step. Each step reads the delivery's state from the database, does one
 * thing and writes the next state, so whichever daemon runs a step — the one that fired, another
 * after a crash, the same one after a restart — continues where the last step ended:
 *
 * 1. A firing's claim transaction records one item per channel of the alert (`recordFiringItems`,
 *    the outbox); after it commits, the daemon that won the claim queues a `collect` job per item.
 * 2. `collect` puts the item into its channel's open group, or opens one that closes
 *    `groupWaitMs` later (Alertmanager's group_wait), and the group's `send` job is queued for then
 *    (with no group wait, the collect job makes the first attempt itself: one job fewer per delivery).
 * 3. `step` (the send job) closes the group (freezing its body: every attempt sends the same
 *    bytes), waits for its pacing slot, takes a lease, makes one attempt and records it:
 *    delivered, retrying at a later time (the job comes back then), or dead.
 *
 * A daemon killed during an attempt leaves the delivery `sending` under a lease; the queue hands
 * the job to another worker once its lock lapses, which waits for the lease and sends again with
 * the same id (`webhook-id`): at least once, and the receiver can tell a repeat.
 */
import type { Logger } from 'pino';
import type { Clock } from '../infra/clock.js';
import type { ChannelType, WebhookBody } from '../contract/notify.js';
import { AppError, notFound } from '../errors.js';
import type { ChannelRecord, ChannelsRepo } from '../store/channels-repo.js';
import type { Queryable } from '../store/db.js';
import type { AttemptOutcome, DeliveriesRepo, DeliveryEntry, DeliveryRecord } from '../store/deliveries-repo.js';
import { alertFiredBody } from './messages.js';
import type { Pacer } from './pacing.js';
import { outcomeOf, type RetrySettings } from './retry-policy.js';
import type { AttemptResult, Sender } from './senders.js';

/** Where the steps are queued (BullMQ in daemon/jobs). */
export interface DeliveryQueuePort {
  /** Queue the attach of one (event, channel) item (idempotent per item). */
  collect(eventId: string, channelId: string): Promise<void>;
  /** Queue a delivery's send step for `atMs` (idempotent per delivery and round). */
  send(deliveryId: string, round: number, atMs: number): Promise<void>;
}

/** Delivery settings (from the configuration). */
export interface DeliverySettings extends RetrySettings {
  groupWaitMs: number;
  maxAgeMs: number;
  timeoutMs: number;
  pacingMs: Readonly<Record<ChannelType, number>>;
  /** Idle time after which the sweep queues a step again. */
  sweepGraceMs: number;
}

/** Collaborators. */
export interface DeliveryServiceDeps {
  repo: DeliveriesRepo;
  channels: Pick<ChannelsRepo, 'getById' | 'disable'>;
  sender: Sender;
  pacer: Pacer;
  queue: DeliveryQueuePort;
  settings: DeliverySettings;
  clock: Clock;
  logger: Logger;
  /** Counts each attempt's outcome by channel type (metrics). */
  observe?(type: ChannelType, outcome: AttemptOutcome['status']): void;
  random?: () => number;
  /** Waits (tests of pacing replace nothing here; default setTimeout). */
  sleep?(ms: number): Promise<void>;
}

/** What the send job should do next. */
export type StepResult = { done: true } | { done: false; at: number };

/** The delivery service. */
export interface DeliveryService {
  /** Inside a firing's claim transaction: its (event, channel) items. Must only touch the database. */
  recordFiringItems(tx: Queryable, firing: { id: string; alert_id: string; user_id: string; fired_at: number }): Promise<number>;
  /** After a firing's claim committed (on the daemon that won it): queue its items. Never throws. */
  onFiring(eventId: string): Promise<void>;
  /**
   * Step 2 for one item. Resolves with the send step its delivery needs (null: none): `created`
   * when this item opened the delivery (its send step is not queued yet), `at` when it is due.
   */
  collect(eventId: string, channelId: string): Promise<{ id: string; round: number; at: number; created: boolean } | null>;
  /** Step 3: advance one delivery as far as it can go now. */
  step(deliveryId: string): Promise<StepResult>;
  /** One attempt now, never retried (a channel's test message); resolves when recorded. */
  attemptOnce(deliveryId: string): Promise<void>;
  /** A user's redelivery of a delivered or dead delivery. @throws AppError NOT_FOUND, CONFLICT */
  redeliver(userId: string, id: string): Promise<DeliveryEntry>;
  /** Queue again whatever was left without a job (a daemon died between a step and the next queueing). */
  sweep(): Promise<{ items: number; deliveries: number }>;
}

/** The destination a pacing slot is kept for: one chat of one bot, one webhook URL, one mailbox. */
export function pacingKey(channel: ChannelRecord): string {
  return channel.type === 'telegram' ? `telegram:${channel.secret ?? ''}:${channel.target}` : `${channel.type}:${channel.target}`;
}

/** Pacing waits up to this long in the worker; a longer wait goes back to the queue. */
const MAX_INLINE_WAIT_MS = 2000;

/** One attempt of `d` to its channel, recorded (delivered, retrying or dead); a channel the receiver refused for good is disabled. */
async function attempt(deps: DeliveryServiceDeps, d: DeliveryRecord, channel: ChannelRecord, once: boolean): Promise<AttemptOutcome> {
  const { clock, logger } = deps;
  const started = clock.now();
  let result: AttemptResult;
  let parsed: WebhookBody;
  try {
    parsed = JSON.parse(d.body ?? 'null') as WebhookBody;
    result = parsed ? await deps.sender({ channel, deliveryId: d.id, body: d.body!, parsed, now: started }) : { ok: false, statusCode: null, error: 'nothing to deliver', permanent: true };
  } catch (err) {
    result = { ok: false, statusCode: null, error: `send failed: ${(err as Error).message}`, permanent: false };
  }
  const finishedAt = clock.now();
  const outcome = outcomeOf(result, d.attempt_count + 1, finishedAt, d.deadline_at, deps.settings, { once, random: deps.random });
  await deps.repo.finish(d.id, { at: started, status_code: result.statusCode, error: result.ok ? null : result.error, duration_ms: Math.max(0, finishedAt - started) }, outcome);
  if (result.disable) {
    await deps.channels.disable(channel.id, result.disable).catch((err: Error) => logger.warn({ err: err.message, channel: channel.id }, 'channel not disabled'));
  }
  deps.observe?.(channel.type, outcome.status);
  if (outcome.status === 'dead') logger.warn({ delivery: d.id, channel: channel.id, type: channel.type, error: outcome.error }, 'delivery dead');
  return outcome;
}

/** A delivery to a disabled channel: dead, with no attempt. */
async function finishDisabled(deps: DeliveryServiceDeps, d: DeliveryRecord, channel: ChannelRecord): Promise<AttemptOutcome> {
  const outcome: AttemptOutcome = { status: 'dead', error: `channel disabled${channel.disabled_reason ? `: ${channel.disabled_reason}` : ''}` };
  await deps.repo.finish(d.id, { at: deps.clock.now(), status_code: null, error: outcome.error, duration_ms: 0 }, outcome);
  deps.observe?.(channel.type, 'dead');
  return outcome;
}

/** Close a due group; wait for a due time or a lapsed lease. Returns the delivery ready to send, or the next step. */
async function due(deps: DeliveryServiceDeps, id: string): Promise<{ d: DeliveryRecord } | StepResult> {
  const { repo } = deps;
  let d = await repo.get(id);
  if (!d || d.status === 'delivered' || d.status === 'dead') return { done: true };
  const now = deps.clock.now();
  if (d.status === 'grouping') {
    if (d.window_ends_at !== null && d.window_ends_at > now) return { done: false, at: d.window_ends_at };
    d = await repo.close(id, now, (events) => alertFiredBody(id, events));
    if (!d || d.status === 'delivered' || d.status === 'dead') return { done: true };
  }
  if ((d.status === 'pending' || d.status === 'retrying') && d.next_attempt_at !== null && d.next_attempt_at > now) return { done: false, at: d.next_attempt_at };
  if (d.status === 'sending' && d.lease_until !== null && d.lease_until > now) return { done: false, at: d.lease_until };
  return { d };
}

/** Create the delivery service. */
export function createDeliveryService(deps: DeliveryServiceDeps): DeliveryService {
  const { repo, settings, clock, logger } = deps;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // An attempt ends within timeoutMs; the margin covers recording it.
  const leaseMs = settings.timeoutMs + 2000;

  async function step(id: string, once = false): Promise<StepResult> {
    const ready = await due(deps, id);
    if (!('d' in ready)) return ready;
    const { d } = ready;
    const channel = await deps.channels.getById(d.channel_id);
    if (!channel) return { done: true };
    const wait = await deps.pacer.reserve(pacingKey(channel), settings.pacingMs[channel.type]);
    if (wait > MAX_INLINE_WAIT_MS && !once) return { done: false, at: clock.now() + wait };
    if (wait > 0) await sleep(wait);
    if (!(await repo.claim(id, clock.now(), leaseMs))) {
      // Another sender holds it, or it moved on meanwhile: look again.
      const again = await due(deps, id);
      return 'd' in again ? { done: false, at: clock.now() + 1000 } : again;
    }
    const outcome = channel.enabled
      ? await attempt(deps, d, channel, once)
      : await finishDisabled(deps, d, channel);
    return outcome.status === 'retrying' ? { done: false, at: outcome.next_attempt_at } : { done: true };
  }

  return {
    recordFiringItems: (tx, firing) => repo.recordAlertItems(tx, firing),
    async onFiring(eventId) {
      try {
        for (const channelId of await repo.channelsOfEvent(eventId)) await deps.queue.collect(eventId, channelId);
      } catch (err) {
        // The sweep queues them later: the items are recorded.
        logger.warn({ err: (err as Error).message, event: eventId }, 'deliveries of a firing not queued yet');
      }
    },
    async collect(eventId, channelId) {
      const now = clock.now();
      const res = await repo.attach(eventId, channelId, now, settings.groupWaitMs, settings.maxAgeMs);
      if (res.kind === 'gone') return null;
      const d = res.delivery;
      if (d.status === 'delivered' || d.status === 'dead') return null;
      return { id: d.id, round: d.round, at: d.status === 'grouping' ? (d.window_ends_at ?? now) : (d.next_attempt_at ?? now), created: res.created };
    },
    step: (id) => step(id),
    async attemptOnce(id) {
      await step(id, true);
    },
    async redeliver(userId, id) {
      const now = clock.now();
      const res = await repo.redeliver(userId, id, now, now + settings.maxAgeMs);
      if (res === 'not_found') throw notFound('Delivery', { id });
      if (res === 'busy') throw new AppError('CONFLICT', 'This delivery is still under way: it can be redelivered once it is delivered or dead', { id });
      await deps.queue.send(res.id, res.round, now);
      return (await repo.entry(userId, id))!;
    },
    async sweep() {
      const found = await repo.sweep(clock.now(), settings.sweepGraceMs, 1000);
      for (const i of found.items) await deps.queue.collect(i.event_id, i.channel_id);
      for (const d of found.deliveries) await deps.queue.send(d.id, d.round, clock.now());
      if (found.items.length + found.deliveries.length > 0) logger.info({ items: found.items.length, deliveries: found.deliveries.length }, 'delivery sweep queued work left behind');
      return { items: found.items.length, deliveries: found.deliveries.length };
    },
  };
}
