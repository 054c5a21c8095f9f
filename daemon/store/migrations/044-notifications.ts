import type { Migration } from './index.js';

/**
 * Notification channels, the alerts and digests that use them, and the delivery log.
 *
 * - `notification_channels`: one per destination a user owns; `target` is where it sends (for
 *   Slack and Discord the whole incoming-webhook URL, itself a secret), `secret` a webhook's
 *   signing secret or a Telegram bot token. Neither secret leaves the daemon after creation.
 * - `alert_channels`: which channels an alert's firings go to. No foreign key on `alert_id`:
 *   SQLite rebuilds a table to change it, and a rebuild of `alerts` would cascade-delete every
 *   link; the alert service removes an alert's links when it deletes the alert.
 * - `deliveries`: one message to one channel. While a burst is being grouped, `group_key` holds
 *   the channel id; its UNIQUE index lets a channel have one open group at a time, so every
 *   daemon attaching a firing finds the same one. `body` is frozen when the group closes, so
 *   every attempt and redelivery sends the same bytes.
 * - `delivery_items`: one per (event, channel), the primary key that makes a firing reach a
 *   channel at most once whatever the number of daemons; inserted in the firing's own claim
 *   transaction (the outbox), so a daemon dying right after the claim loses nothing.
 * - `delivery_attempts`: each attempt with its time, status code and error.
 * - `schedules`, `schedule_channels`, `schedule_runs`: daily digests; UNIQUE (schedule, trade
 *   date) lets one daemon run a digest once per trading day.
 */
const SQLITE = `
CREATE TABLE notification_channels (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('webhook','telegram','slack','discord','email')),
  name TEXT NOT NULL,
  target TEXT NOT NULL,
  secret TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX notification_channels_user ON notification_channels (user_id, created_at);

CREATE TABLE alert_channels (
  alert_id TEXT NOT NULL,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  PRIMARY KEY (alert_id, channel_id)
);
CREATE INDEX alert_channels_channel ON alert_channels (channel_id);

CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  channel_type TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('alert','digest','test')),
  status TEXT NOT NULL CHECK (status IN ('grouping','pending','sending','retrying','delivered','dead')),
  group_key TEXT,
  window_ends_at INTEGER,
  schedule_id TEXT,
  body TEXT,
  round INTEGER NOT NULL DEFAULT 0,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  deadline_at INTEGER NOT NULL,
  lease_until INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX deliveries_open_group ON deliveries (group_key);
CREATE INDEX deliveries_user ON deliveries (user_id, created_at);
CREATE INDEX deliveries_status ON deliveries (status, updated_at);

CREATE TABLE delivery_items (
  event_id TEXT NOT NULL,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  alert_id TEXT,
  delivery_id TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (event_id, channel_id)
);
CREATE INDEX delivery_items_delivery ON delivery_items (delivery_id);
CREATE INDEX delivery_items_alert ON delivery_items (alert_id);

CREATE TABLE delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  n INTEGER NOT NULL,
  at INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, n)
);

CREATE TABLE schedules (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  preset_id TEXT NOT NULL REFERENCES screen_presets(id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX schedules_user ON schedules (user_id, created_at);

CREATE TABLE schedule_channels (
  schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  PRIMARY KEY (schedule_id, channel_id)
);

CREATE TABLE schedule_runs (
  id TEXT PRIMARY KEY,
  schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  trade_date TEXT NOT NULL,
  ran_at INTEGER NOT NULL,
  members TEXT NOT NULL,
  entered INTEGER NOT NULL,
  exited INTEGER NOT NULL,
  UNIQUE (schedule_id, trade_date)
);
`;

const POSTGRES = `
CREATE TABLE notification_channels (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('webhook','telegram','slack','discord','email')),
  name TEXT NOT NULL,
  target TEXT NOT NULL,
  secret TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX notification_channels_user ON notification_channels (user_id, created_at);

CREATE TABLE alert_channels (
  alert_id TEXT NOT NULL,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  PRIMARY KEY (alert_id, channel_id)
);
CREATE INDEX alert_channels_channel ON alert_channels (channel_id);

CREATE TABLE deliveries (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  channel_type TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('alert','digest','test')),
  status TEXT NOT NULL CHECK (status IN ('grouping','pending','sending','retrying','delivered','dead')),
  group_key TEXT,
  window_ends_at BIGINT,
  schedule_id TEXT,
  body TEXT,
  round INTEGER NOT NULL DEFAULT 0,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT,
  deadline_at BIGINT NOT NULL,
  lease_until BIGINT,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  delivered_at BIGINT,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX deliveries_open_group ON deliveries (group_key);
CREATE INDEX deliveries_user ON deliveries (user_id, created_at);
CREATE INDEX deliveries_status ON deliveries (status, updated_at);

CREATE TABLE delivery_items (
  event_id TEXT NOT NULL,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  alert_id TEXT,
  delivery_id TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (event_id, channel_id)
);
CREATE INDEX delivery_items_delivery ON delivery_items (delivery_id);
CREATE INDEX delivery_items_alert ON delivery_items (alert_id);

CREATE TABLE delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  n INTEGER NOT NULL,
  at BIGINT NOT NULL,
  status_code INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, n)
);

CREATE TABLE schedules (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  preset_id TEXT NOT NULL REFERENCES screen_presets(id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX schedules_user ON schedules (user_id, created_at);

CREATE TABLE schedule_channels (
  schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  channel_id TEXT NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
  PRIMARY KEY (schedule_id, channel_id)
);

CREATE TABLE schedule_runs (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  schedule_id TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
  trade_date TEXT NOT NULL,
  ran_at BIGINT NOT NULL,
  members TEXT NOT NULL,
  entered INTEGER NOT NULL,
  exited INTEGER NOT NULL,
  UNIQUE (schedule_id, trade_date)
);
`;

/** Notification channels, alert/digest links, deliveries with their attempts, digest schedules and runs. */
export const m044Notifications: Migration = { id: 44, name: 'notifications', sqlite: SQLITE, postgres: POSTGRES };
