import type { Migration } from './index.js';

/**
 * Alerts on screens: `screen_enter`/`screen_exit` alerts name a preset instead of
 * a stock and have no threshold. `alerts` gets `preset_id` (deleting the preset deletes its
 * screen alerts; their history stays), `stock_code` and `threshold` become nullable, and the
 * type check takes the new types. `alert_events` gets `preset_id`, a nullable threshold, and
 * `claim`: a screen firing (generation 0) is identified by the stock and the cause of its
 * entry or exit (`<code>@tick:<bus id>` or `<code>@snapshot:<version>`), the same on every
 * daemon, so the unique key widens to (alert_id, generation, claim); price firings keep
 * claim '' and are unique per (alert_id, generation) as before. SQLite cannot alter these columns: both
 * tables are rebuilt (nothing references them).
 */
const SQLITE = `
CREATE TABLE alerts_013 (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stock_code TEXT,
  preset_id TEXT REFERENCES screen_presets(id) ON DELETE CASCADE,
  alert_type TEXT NOT NULL CHECK (alert_type IN ('price_above','price_below','change_percent_above','change_percent_below','volume_above','screen_enter','screen_exit')),
  threshold REAL,
  recurring INTEGER NOT NULL DEFAULT 0,
  cooldown_s INTEGER NOT NULL DEFAULT 0 CHECK (cooldown_s >= 0),
  note TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  armed INTEGER NOT NULL DEFAULT 1,
  fire_count INTEGER NOT NULL DEFAULT 0,
  last_fired_at INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((preset_id IS NULL) = (stock_code IS NOT NULL))
);
INSERT INTO alerts_013 (id, user_id, stock_code, alert_type, threshold, recurring, cooldown_s, note, active, armed, fire_count, last_fired_at, created_at, updated_at)
  SELECT id, user_id, stock_code, alert_type, threshold, recurring, cooldown_s, note, active, armed, fire_count, last_fired_at, created_at, updated_at FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_013 RENAME TO alerts;
CREATE INDEX alerts_user ON alerts (user_id, active, stock_code);
CREATE INDEX alerts_active ON alerts (active, stock_code);
CREATE INDEX alerts_preset ON alerts (preset_id);

CREATE TABLE alert_events_013 (
  id TEXT PRIMARY KEY,
  alert_id TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  generation INTEGER NOT NULL,
  claim TEXT NOT NULL DEFAULT '',
  stock_code TEXT NOT NULL,
  preset_id TEXT,
  alert_type TEXT NOT NULL,
  threshold REAL,
  price REAL NOT NULL,
  change_percent REAL,
  volume INTEGER,
  message TEXT NOT NULL,
  fired_at INTEGER NOT NULL,
  UNIQUE (alert_id, generation, claim)
);
INSERT INTO alert_events_013 (id, alert_id, user_id, generation, stock_code, alert_type, threshold, price, change_percent, volume, message, fired_at)
  SELECT id, alert_id, user_id, generation, stock_code, alert_type, threshold, price, change_percent, volume, message, fired_at FROM alert_events ORDER BY rowid;
DROP TABLE alert_events;
ALTER TABLE alert_events_013 RENAME TO alert_events;
CREATE INDEX alert_events_user ON alert_events (user_id, fired_at);
CREATE INDEX alert_events_stock ON alert_events (alert_id, stock_code, fired_at);
`;

const POSTGRES = `
ALTER TABLE alerts ALTER COLUMN stock_code DROP NOT NULL;
ALTER TABLE alerts ALTER COLUMN threshold DROP NOT NULL;
ALTER TABLE alerts ADD COLUMN preset_id TEXT REFERENCES screen_presets(id) ON DELETE CASCADE;
ALTER TABLE alerts DROP CONSTRAINT alerts_alert_type_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_alert_type_check
  CHECK (alert_type IN ('price_above','price_below','change_percent_above','change_percent_below','volume_above','screen_enter','screen_exit'));
ALTER TABLE alerts ADD CONSTRAINT alerts_target_check CHECK ((preset_id IS NULL) = (stock_code IS NOT NULL));
CREATE INDEX alerts_preset ON alerts (preset_id);

ALTER TABLE alert_events ADD COLUMN claim TEXT NOT NULL DEFAULT '';
ALTER TABLE alert_events ADD COLUMN preset_id TEXT;
ALTER TABLE alert_events ALTER COLUMN threshold DROP NOT NULL;
ALTER TABLE alert_events DROP CONSTRAINT alert_events_alert_id_generation_key;
ALTER TABLE alert_events ADD CONSTRAINT alert_events_alert_id_generation_claim_key UNIQUE (alert_id, generation, claim);
CREATE INDEX alert_events_stock ON alert_events (alert_id, stock_code, fired_at);
`;

/** Alerts on screens: preset_id, nullable code and threshold, and the firing claim. */
export const m013ScreenAlerts: Migration = { id: 13, name: 'screen-alerts', sqlite: SQLITE, postgres: POSTGRES };
