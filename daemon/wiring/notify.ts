/**
 * Notification wiring (the role `notify`, and `jobs.delivery`): channels, the delivery pipeline (outbound HTTP with its address policy,
 * the senders, pacing, the delivery queue and this daemon's worker on it), digest schedules and
 * their clock. Built before the real-time parts, whose firings it delivers.
 */
import { Counter } from 'prom-client';
import nodemailer, { type Transporter } from 'nodemailer';
import { JOB_STATES, registerJobCounts } from '../infra/metrics.js';
import type { PartList } from '../infra/parts.js';
import { createDeliveryJobs, type DeliveryJobs } from '../jobs/delivery-jobs.js';
import { createAddressPolicy } from '../notify/address-policy.js';
import { createChannelService } from '../notify/channel-service.js';
import { createDeliveryService, type DeliveryService } from '../notify/delivery-service.js';
import { createDigests } from '../notify/digests.js';
import { createOutbound, type Outbound, type Resolver } from '../notify/outbound.js';
import { createRedisPacer } from '../notify/pacing.js';
import { createScheduleService } from '../notify/schedule-service.js';
import { createSender } from '../notify/senders.js';
import type { AlertChannelLinks } from '../alerts/alert-service.js';
import { VERSION } from '../version.js';
import type { DaemonContext, NotifyContext } from './context.js';

/** Test seams. */
export interface NotifyOverrides {
  /** Name resolution of outbound URLs (DNS rebinding tests). */
  resolve?: Resolver;
}

/** Most members a digest lists. */
const MAX_DIGEST_MEMBERS = 500;

function mailTransport(url: string | undefined, timeoutMs: number): Transporter | undefined {
  if (!url) return undefined;
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return nodemailer.createTransport({
    host: u.hostname, port: Number(u.port || (secure ? 465 : 587)), secure,
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
    pool: true, maxConnections: 2,
  });
}

/** The delivery pipeline's service: the senders, pacing in Redis, retries, its attempts counted in /metrics. */
function buildDeliveryService(
  ctx: Pick<DaemonContext, 'core' | 'redis' | 'store'>,
  deps: { deliveryJobs: DeliveryJobs; outbound: Outbound; mail: Transporter | undefined },
): DeliveryService {
  const { config, logger, clock, metrics } = ctx.core;
  const { outbound, mail } = deps;
  const attempts = new Counter({
    name: 'stockscreen_delivery_attempts_total',
    help: 'Notification delivery attempts by channel type and outcome (delivered, retrying: failed and scheduled again, dead: given up)',
    labelNames: ['channel_type', 'outcome'],
    registers: [metrics.registry],
  });
  return createDeliveryService({
    repo: ctx.store.deliveries, channels: ctx.store.channels, queue: deps.deliveryJobs, clock, logger,
    sender: createSender({ outbound, telegramApiUrl: config.telegram_api_url, mail, mailFrom: config.smtp_from, timeoutMs: config.delivery_timeout_ms, userAgent: `stockscreen-notify/${VERSION}` }),
    pacer: createRedisPacer(ctx.redis.commands, ctx.redis.factory.key),
    settings: {
      groupWaitMs: config.delivery_group_wait_ms, maxAgeMs: config.delivery_max_age_s * 1000, timeoutMs: config.delivery_timeout_ms, pacingMs: config.delivery_pacing_ms,
      baseMs: config.delivery_retry_base_ms, maxMs: config.delivery_retry_max_ms, sweepGraceMs: Math.max(60_000, config.delivery_sweep_interval_ms),
    },
    observe: (type, outcome) => attempts.inc({ channel_type: type, outcome }),
  });
}

/** Build the notification parts; the part `deliveries` runs this daemon's delivery worker (`delivery_workers` at a time) once started. */
export function buildNotify(
  ctx: Pick<DaemonContext, 'core' | 'redis' | 'store' | 'screening'>,
  list: PartList,
  overrides: NotifyOverrides = {},
): { notify: NotifyContext; deliveryJobs: DeliveryJobs } {
  const { config, logger, clock, metrics } = ctx.core;
  const { factory } = ctx.redis;
  const { channels: channelsRepo, deliveries: deliveriesRepo, schedules: schedulesRepo, presets } = ctx.store;
  const outbound = createOutbound({ policy: createAddressPolicy(config.webhook_allow_private), timeoutMs: config.delivery_timeout_ms, resolve: overrides.resolve });
  const mail = mailTransport(config.smtp_url, config.delivery_timeout_ms);
  const deliveryJobs = createDeliveryJobs({
    redis: factory, logger, clock, lockMs: config.job_lock_ms, digestIntervalMs: config.digest_check_interval_ms, sweepIntervalMs: config.delivery_sweep_interval_ms,
  });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await deliveryJobs.close();
      await outbound.close();
      mail?.close();
    })());
  list.add({
    name: 'deliveries',
    start: () => deliveryJobs.start(
      { collect: (e, c) => deliveryService.collect(e, c), step: (id) => deliveryService.step(id), digestTick: () => digests.tick(), sweep: () => deliveryService.sweep() },
      config.delivery_workers,
    ),
    // Firings recorded before this part stops have queued their deliveries; the worker finishes (or gives back) its attempts.
    stop: close,
  });
  registerJobCounts(metrics.registry, () => deliveryJobs.queue.getJobCounts(...JOB_STATES), 500, { name: 'stockscreen_delivery_jobs', queue: 'deliveries' });
  const maxAgeMs = config.delivery_max_age_s * 1000;
  const deliveryService = buildDeliveryService(ctx, { deliveryJobs, outbound, mail });
  const channelService = createChannelService({
    channels: channelsRepo, deliveries: deliveriesRepo, outbound, attemptOnce: (id) => deliveryService.attemptOnce(id),
    caps: config.channel_caps, smtp: mail !== undefined, maxAgeMs, clock,
  });
  const { screens } = ctx.screening;
  const scheduleService = createScheduleService({
    schedules: schedulesRepo, channels: channelService, caps: config.schedule_caps, clock,
    presetExists: async (userId, id) => (await presets.get(userId, id)) !== undefined,
  });
  const digests = createDigests({
    schedules: schedulesRepo, deliveries: deliveriesRepo, channels: channelsRepo, queue: deliveryJobs, clock, logger, maxAgeMs,
    async members(userId, presetId) {
      const preset = await presets.get(userId, presetId);
      if (!preset) return null;
      // The saved query was checked against its owner's budget when saved (as screen alerts' are).
      const answer = await screens.run(screens.compile(preset.query, 'trusted'));
      const items = JSON.parse(answer.stocks.toString('utf8')) as { code: string; name?: string }[];
      return { name: preset.name, members: items.slice(0, MAX_DIGEST_MEMBERS).map((i) => ({ code: i.code, name: i.name ?? i.code })) };
    },
  });
  const alertLinks: AlertChannelLinks = {
    check: (userId, ids) => channelService.checkOwned(userId, ids, 'channels'),
    set: (alertId, ids) => channelsRepo.setAlertChannels(alertId, ids),
    of: (alertIds) => channelsRepo.alertChannels(alertIds),
    clear: (alertId) => channelsRepo.clearAlert(alertId),
  };
  return { notify: { outbound, deliveryService, channelService, scheduleService, digests, alertLinks, close }, deliveryJobs };
}
