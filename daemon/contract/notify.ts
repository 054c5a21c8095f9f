/**
 * Notifications on the wire: the channels a user owns (/channels…), the delivery log
 * (/deliveries…) and daily digests of a preset (/schedules…). Secrets (a webhook's signing
 * secret, a Telegram bot token, the secret path of a Slack or Discord incoming-webhook URL) are
 * accepted once and never shown again; only the creation answer of a webhook carries its secret.
 * Every shape is a zod schema (validation, OpenAPI and types from one place); the webhook bodies
 * are not validated anywhere (the daemon builds them), their schemas give their types.
 */
import { z } from 'zod';

/** Where a channel sends. */
export const CHANNEL_TYPES = ['webhook', 'telegram', 'slack', 'discord', 'email'] as const;
/** One of CHANNEL_TYPES. */
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Longest URL a channel may have. */
export const MAX_URL_LENGTH = 2048;

const channelType = z.enum(CHANNEL_TYPES, { error: `must be one of ${CHANNEL_TYPES.join(', ')}` });
const channelName = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');
const channelUrl = z.string().max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`).describe('https:// URL (plain http:// only to addresses the operator allows)');
const botToken = z
  .string()
  .max(200, 'must be at most 200 characters')
  .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,120}$/, 'must be a bot token from @BotFather (123456:ABC…)')
  .describe('A secret: accepted, never shown again');
const chatId = z
  .string()
  .max(40, 'must be at most 40 characters')
  .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'must be a numeric chat id or @channelusername');
const address = z.email('must be a valid email address').max(254, 'must be at most 254 characters');

/**
 * A channel as the API shows it (no secret). `target` is safe to show: a webhook's URL, a
 * Telegram chat id, an e-mail address, or a Slack/Discord incoming-webhook URL with its secret
 * path cut. `enabled` is false once a receiver said it wants no more (PATCH `enabled: true` resumes).
 */
export const Channel = z
  .object({
    id: z.string(), type: channelType, name: z.string(),
    target: z.string().describe('Where it sends: a webhook URL, a Telegram chat id, an e-mail address, or a Slack/Discord URL with its secret path cut'),
    enabled: z.boolean(), disabled_reason: z.string().nullable().describe('Why it was switched off (a receiver answered 410 Gone, a deleted webhook or chat…)'),
    created_at: z.string(), updated_at: z.string(),
  })
  .meta({ id: 'Channel' });
export type Channel = z.output<typeof Channel>;

/** The answer to POST /channels (and to a PATCH that rotates the secret): the only time a webhook's `secret` is shown. */
export const CreatedChannel = Channel
  .extend({ secret: z.string().optional().describe('A webhook\'s Standard Webhooks signing secret (whsec_…): store it now, it is never shown again') })
  .meta({ id: 'CreatedChannel' });
export type CreatedChannel = z.output<typeof CreatedChannel>;

/** Body of POST /channels: `{type, name}` plus the fields of its type. */
export const NewChannel = z.strictObject({
  type: channelType,
  name: channelName,
  url: channelUrl.optional().describe('webhook, slack, discord'),
  bot_token: botToken.optional().describe('telegram (a secret: accepted, never shown again)'),
  chat_id: chatId.optional().describe('telegram'),
  address: address.optional().describe('email'),
});
export type NewChannel = z.output<typeof NewChannel>;

/** Body of PATCH /channels/{id} (at least one field). */
export const ChannelPatch = z
  .strictObject({
    name: channelName.optional(),
    enabled: z.boolean().optional().describe('true resumes a channel switched off after a receiver refused it for good'),
    url: channelUrl.optional(),
    bot_token: botToken.optional(),
    chat_id: chatId.optional(),
    address: address.optional(),
    rotate_secret: z.literal(true).optional().describe('webhook: a new signing secret, shown once in this answer'),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of name, enabled, url, bot_token, chat_id, address, rotate_secret' });
export type ChannelPatch = z.output<typeof ChannelPatch>;

/** What a delivery carries. */
export const DELIVERY_KINDS = ['alert', 'digest', 'test'] as const;
/** One of DELIVERY_KINDS. */
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/**
 * A delivery's state: `grouping` (collecting a burst, see group wait), `pending` (due),
 * `sending` (an attempt under way), `retrying` (an attempt failed; the next is scheduled),
 * `delivered`, `dead` (given up: a permanent refusal or retries exhausted).
 */
export const DELIVERY_STATUSES = ['grouping', 'pending', 'sending', 'retrying', 'delivered', 'dead'] as const;
/** One of DELIVERY_STATUSES. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One attempt of a delivery: `at` is the ISO time it started; `status_code` the receiver's HTTP status (the SMTP reply code for e-mail), null when none came (timeout, refused, network); `error` why it failed (null on success). */
export const DeliveryAttempt = z.object({ n: z.number(), at: z.string(), status_code: z.number().nullable(), error: z.string().nullable(), duration_ms: z.number() });
export type DeliveryAttempt = z.output<typeof DeliveryAttempt>;

/**
 * One message to one channel: a firing, a burst of firings grouped together, a digest, or a
 * test. `alert_ids`: the alerts whose firings it carries; `schedule_id`: the schedule of a
 * digest; `text` is null while grouping; `next_attempt_at` (ISO) is set while pending or
 * retrying; `last_error` is the last failure (dead: why it was given up).
 */
export const Delivery = z
  .object({
    id: z.string().describe('Also the webhook-id header: the same on every attempt and redelivery'),
    channel_id: z.string(), channel_type: z.enum(CHANNEL_TYPES), kind: z.enum(DELIVERY_KINDS), status: z.enum(DELIVERY_STATUSES),
    alert_ids: z.array(z.string()), event_ids: z.array(z.string()).describe('The alert firings it carries (several when a burst was grouped)'),
    schedule_id: z.string().nullable(), text: z.string().nullable().describe('The message as chat and mail receivers read it'),
    attempts: z.array(DeliveryAttempt),
    next_attempt_at: z.string().nullable(), created_at: z.string(), delivered_at: z.string().nullable(), last_error: z.string().nullable(),
  })
  .meta({ id: 'Delivery' });
export type Delivery = z.output<typeof Delivery>;

const DELIVERY_STATUS_FILTERS = [...DELIVERY_STATUSES, 'failed'] as const;

/** Query of GET /deliveries: filters (`status` `failed`: retrying or dead) and paging (at most 200 a page). */
export const DeliveryListQuery = z.object({
  channel_id: z.uuid('must be a channel id').optional(),
  alert_id: z.uuid('must be an alert id').optional(),
  status: z.enum(DELIVERY_STATUS_FILTERS, { error: `must be one of ${DELIVERY_STATUS_FILTERS.join(', ')}` }).optional().describe('`failed`: retrying or dead'),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type DeliveryListQuery = z.output<typeof DeliveryListQuery>;

/** One firing in an `alert.fired` body. */
export const FiredEvent = z.object({
  event_id: z.string(), alert_id: z.string(), alert_type: z.string(), code: z.string(), name: z.string().nullable(), preset_id: z.string().nullable(),
  threshold: z.number().nullable(), current_price: z.number(), change_percent: z.number().nullable(), volume: z.number().nullable(), message: z.string(), fired_at: z.string(),
});
export type FiredEvent = z.output<typeof FiredEvent>;

/** `data` of `alert.fired`: every firing of the burst, oldest first. */
export const AlertFiredData = z.object({ delivery_id: z.string(), events: z.array(FiredEvent) });
export type AlertFiredData = z.output<typeof AlertFiredData>;

/** A stock in a digest. */
export const DigestMember = z.object({ code: z.string(), name: z.string() });
export type DigestMember = z.output<typeof DigestMember>;

/**
 * `data` of `schedule.digest`: `trade_date` is the run's trading day (Korea); `entered` the
 * members in the screen now and not at the previous run (all members at the first run), `left`
 * those in it then and not now; `previous_trade_date` is null at the first run.
 */
export const DigestData = z.object({
  delivery_id: z.string(), schedule_id: z.string(), preset_id: z.string(), preset_name: z.string(), trade_date: z.string(),
  members: z.array(DigestMember), entered: z.array(DigestMember), left: z.array(DigestMember), previous_trade_date: z.string().nullable(),
});
export type DigestData = z.output<typeof DigestData>;

/** `data` of `channel.test`. */
export const TestData = z.object({ delivery_id: z.string(), channel_id: z.string(), message: z.string() });
export type TestData = z.output<typeof TestData>;

/** The body of a webhook delivery (Standard Webhooks' `{type, timestamp, data}`); `timestamp` is the ISO time of the event (the first firing of a grouped delivery). */
export const WebhookBody = z.object({
  type: z.enum(['alert.fired', 'schedule.digest', 'channel.test']),
  timestamp: z.string(),
  data: z.union([AlertFiredData, DigestData, TestData]),
});
export type WebhookBody = z.output<typeof WebhookBody>;

/** One run of a schedule. */
export const ScheduleRun = z.object({ trade_date: z.string(), ran_at: z.string(), members: z.number(), entered: z.number(), left: z.number() });
export type ScheduleRun = z.output<typeof ScheduleRun>;

/** A daily digest of a preset: `at` is `HH:MM`, Korea time (KRX trading days only); `last_run` the last run, if any. */
export const Schedule = z
  .object({
    id: z.string(), preset_id: z.string(), preset_name: z.string(), at: z.string().describe('HH:MM, Korea time'), channels: z.array(z.string()),
    last_run: ScheduleRun.nullable(),
    next_run_at: z.string().describe('When it runs next: the next trading day\'s `at` time, Korea time, or now when due'), created_at: z.string(),
  })
  .meta({ id: 'Schedule' });
export type Schedule = z.output<typeof Schedule>;

/** Most channels one schedule sends to. */
export const MAX_SCHEDULE_CHANNELS = 10;

/** Body of POST /schedules. */
export const NewSchedule = z.strictObject({
  preset_id: z.uuid('must be a preset id').describe('One of your presets (GET /screen/presets)'),
  at: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (24 h, Korea time), e.g. 15:40').describe('Time of day, Korea time (KST)'),
  channels: z
    .array(z.uuid('must be a channel id'), { error: 'must be an array of channel ids' })
    .min(1, 'give at least one channel')
    .max(MAX_SCHEDULE_CHANNELS, `at most ${MAX_SCHEDULE_CHANNELS} channels`),
});
export type NewSchedule = z.output<typeof NewSchedule>;
