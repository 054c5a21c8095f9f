/**
 * Notifications on the wire: the channels a user owns (/channels…), the delivery log
 * (/deliveries…) and daily digests of a preset (/schedules…). Secrets (a webhook's signing
 * secret, a Telegram bot token, the secret path of a Slack or Discord incoming-webhook URL) are
 * accepted once and never shown again; only the creation answer of a webhook carries its secret.
 * The channel shapes are zod schemas (validation, OpenAPI and types from one place).
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

/** One attempt of a delivery. */
export interface DeliveryAttempt {
  /** 1, 2, … in order. */
  n: number;
  /** ISO time the attempt started. */
  at: string;
  /** The receiver's HTTP status (the SMTP reply code for e-mail); null when none came (timeout, refused, network). */
  status_code: number | null;
  /** Why it failed (null on success). */
  error: string | null;
  duration_ms: number;
}

/** One message to one channel: a firing, a burst of firings grouped together, a digest, or a test. */
export interface Delivery {
  /** Also the `webhook-id` header: the same on every attempt and redelivery (the receiver's idempotency key). */
  id: string;
  channel_id: string;
  channel_type: ChannelType;
  kind: DeliveryKind;
  status: DeliveryStatus;
  /** The alerts whose firings it carries (a grouped delivery: several). */
  alert_ids: string[];
  /** The alert firings it carries (`GET /alerts/events` ids). */
  event_ids: string[];
  /** The schedule of a digest. */
  schedule_id: string | null;
  /** The message's text (what Telegram, Slack, Discord and e-mail receivers read); null while grouping. */
  text: string | null;
  attempts: DeliveryAttempt[];
  /** ISO time of the next attempt (pending, retrying). */
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  /** The last failure (dead: why it was given up). */
  last_error: string | null;
}

/** The body of a webhook delivery (Standard Webhooks' `{type, timestamp, data}`). */
export interface WebhookBody {
  type: 'alert.fired' | 'schedule.digest' | 'channel.test';
  /** ISO time of the event (the first firing of a grouped delivery). */
  timestamp: string;
  data: AlertFiredData | DigestData | TestData;
}

/** One firing in an `alert.fired` body. */
export interface FiredEvent {
  event_id: string;
  alert_id: string;
  alert_type: string;
  code: string;
  name: string | null;
  preset_id: string | null;
  threshold: number | null;
  current_price: number;
  change_percent: number | null;
  volume: number | null;
  message: string;
  fired_at: string;
}

/** `data` of `alert.fired`: every firing of the burst, oldest first. */
export interface AlertFiredData {
  delivery_id: string;
  events: FiredEvent[];
}

/** A stock in a digest. */
export interface DigestMember {
  code: string;
  name: string;
}

/** `data` of `schedule.digest`. */
export interface DigestData {
  delivery_id: string;
  schedule_id: string;
  preset_id: string;
  preset_name: string;
  /** The trading day (Korea) of the run. */
  trade_date: string;
  members: DigestMember[];
  /** In the screen now, not at the previous run (all members at the first run). */
  entered: DigestMember[];
  /** In the screen at the previous run, not now. */
  left: DigestMember[];
  /** The previous run's trading day (null at the first run). */
  previous_trade_date: string | null;
}

/** `data` of `channel.test`. */
export interface TestData {
  delivery_id: string;
  channel_id: string;
  message: string;
}

/** A daily digest of a preset. */
export interface Schedule {
  id: string;
  preset_id: string;
  preset_name: string;
  /** `HH:MM`, Korea time; runs on KRX trading days only. */
  at: string;
  channels: string[];
  /** The last run, if any. */
  last_run: ScheduleRun | null;
  /** ISO time of the next run (the next trading day at `at`, Korea time). */
  next_run_at: string;
  created_at: string;
}

/** One run of a schedule. */
export interface ScheduleRun {
  trade_date: string;
  ran_at: string;
  members: number;
  entered: number;
  left: number;
}

/** Body of POST /schedules. */
export interface NewSchedule {
  preset_id: string;
  at: string;
  channels: string[];
}
