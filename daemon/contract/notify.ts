/**
 * Notifications on the wire: the channels a user owns (/channels…), the delivery log
 * (/deliveries…) and daily digests of a preset (/schedules…). Secrets (a webhook's signing
 * secret, a Telegram bot token, the secret path of a Slack or Discord incoming-webhook URL) are
 * accepted once and never shown again; only the creation answer of a webhook carries its secret.
 */

/** Where a channel sends. */
export const CHANNEL_TYPES = ['webhook', 'telegram', 'slack', 'discord', 'email'] as const;
/** One of CHANNEL_TYPES. */
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** A channel as the API shows it (no secret). */
export interface Channel {
  id: string;
  type: ChannelType;
  name: string;
  /**
   * Where it sends, safe to show: a webhook's URL, a Telegram chat id, an e-mail address, or a
   * Slack/Discord incoming-webhook URL with its secret path cut (`https://hooks.slack.com/services/T0…/…`).
   */
  target: string;
  /** False once a receiver said it wants no more (410 Gone, a deleted Slack channel…); PATCH `enabled: true` to resume. */
  enabled: boolean;
  /** Why the channel was switched off (null while enabled or when its owner switched it off). */
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** The answer to POST /channels (and to a PATCH that rotates the secret): the only time `secret` is shown. */
export interface CreatedChannel extends Channel {
  /** A webhook's signing secret (`whsec_…`, Standard Webhooks); absent for other types. */
  secret?: string;
}

/** Body of POST /channels: `{type, name}` plus the fields of its type. */
export interface NewChannel {
  type: ChannelType;
  name: string;
  /** webhook, slack, discord. */
  url?: string;
  /** telegram: the bot's token from @BotFather (a secret). */
  bot_token?: string;
  /** telegram: the chat's numeric id or `@channelusername`. */
  chat_id?: string;
  /** email. */
  address?: string;
}

/** Body of PATCH /channels/{id} (at least one field). */
export interface ChannelPatch {
  name?: string;
  enabled?: boolean;
  url?: string;
  bot_token?: string;
  chat_id?: string;
  address?: string;
  /** webhook: a new signing secret, shown once in the answer. */
  rotate_secret?: boolean;
}

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
