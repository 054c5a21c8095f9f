import type { Migration } from './index.js';

/**
 * Portfolio holdings and transactions, price alerts and their firing history.
 * Every row has one owner. Stock codes are not foreign keys: a reloaded listing must not
 * cascade away a user's positions; the API checks the code when the row is written.
 * `alert_events` keeps its own copy of the alert's fields so the history survives the
 * alert's deletion; UNIQUE (alert_id, generation) makes a firing recordable only once.
 */
export const m004PortfolioAlerts: Migration = {
  id: 4,
  name: 'portfolio-alerts',
  sqlite: `
CREATE TABLE holdings (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stock_code TEXT NOT NULL,
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  average_price REAL NOT NULL CHECK (average_price > 0),
  acquired_at TEXT NOT NULL,
  note TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX holdings_user_code ON holdings (user_id, stock_code);

CREATE TABLE portfolio_transactions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stock_code TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('buy','sell')),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  price REAL NOT NULL CHECK (price > 0),
  fee REAL NOT NULL DEFAULT 0 CHECK (fee >= 0),
  traded_at TEXT NOT NULL,
  average_cost REAL NOT NULL,
  realized_pnl REAL,
  created_at TEXT NOT NULL
);
CREATE INDEX portfolio_transactions_user ON portfolio_transactions (user_id, created_at);

CREATE TABLE alerts (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stock_code TEXT NOT NULL,
  alert_type TEXT NOT NULL CHECK (alert_type IN ('price_above','price_below','change_percent_above','change_percent_below','volume_above')),
  threshold REAL NOT NULL,
  recurring INTEGER NOT NULL DEFAULT 0,
  cooldown_s INTEGER NOT NULL DEFAULT 0 CHECK (cooldown_s >= 0),
  note TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  armed INTEGER NOT NULL DEFAULT 1,
  fire_count INTEGER NOT NULL DEFAULT 0,
  last_fired_at INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX alerts_user ON alerts (user_id, active, stock_code);
CREATE INDEX alerts_active ON alerts (active, stock_code);

CREATE TABLE alert_events (
  id TEXT PRIMARY KEY,
  alert_id TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  generation INTEGER NOT NULL,
  stock_code TEXT NOT NULL,
  alert_type TEXT NOT NULL,
  threshold REAL NOT NULL,
  price REAL NOT NULL,
  change_percent REAL,
  volume INTEGER,
  message TEXT NOT NULL,
  fired_at INTEGER NOT NULL,
  UNIQUE (alert_id, generation)
);
CREATE INDEX alert_events_user ON alert_events (user_id, fired_at);
`,
  postgres: `
CREATE TABLE holdings (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stock_code TEXT NOT NULL,
  quantity BIGINT NOT NULL CHECK (quantity > 0),
  average_price DOUBLE PRECISION NOT NULL CHECK (average_price > 0),
  acquired_at TEXT NOT NULL,
  note TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX holdings_user_code ON holdings (user_id, stock_code);

CREATE TABLE portfolio_transactions (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stock_code TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('buy','sell')),
  quantity BIGINT NOT NULL CHECK (quantity > 0),
  price DOUBLE PRECISION NOT NULL CHECK (price > 0),
  fee DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (fee >= 0),
  traded_at TEXT NOT NULL,
  average_cost DOUBLE PRECISION NOT NULL,
  realized_pnl DOUBLE PRECISION,
  created_at TEXT NOT NULL
);
CREATE INDEX portfolio_transactions_user ON portfolio_transactions (user_id, created_at);

CREATE TABLE alerts (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  stock_code TEXT NOT NULL,
  alert_type TEXT NOT NULL CHECK (alert_type IN ('price_above','price_below','change_percent_above','change_percent_below','volume_above')),
  threshold DOUBLE PRECISION NOT NULL,
  recurring INTEGER NOT NULL DEFAULT 0,
  cooldown_s BIGINT NOT NULL DEFAULT 0 CHECK (cooldown_s >= 0),
  note TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  armed INTEGER NOT NULL DEFAULT 1,
  fire_count BIGINT NOT NULL DEFAULT 0,
  last_fired_at BIGINT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX alerts_user ON alerts (user_id, active, stock_code);
CREATE INDEX alerts_active ON alerts (active, stock_code);

CREATE TABLE alert_events (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  alert_id TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  generation BIGINT NOT NULL,
  stock_code TEXT NOT NULL,
  alert_type TEXT NOT NULL,
  threshold DOUBLE PRECISION NOT NULL,
  price DOUBLE PRECISION NOT NULL,
  change_percent DOUBLE PRECISION,
  volume BIGINT,
  message TEXT NOT NULL,
  fired_at BIGINT NOT NULL,
  UNIQUE (alert_id, generation)
);
CREATE INDEX alert_events_user ON alert_events (user_id, fired_at);
`,
};
