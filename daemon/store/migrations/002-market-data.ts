import type { Migration } from './index.js';

/** Stocks, daily bars, halts, quarterly financials, market index series, computed indicators. */
export const m002MarketData: Migration = {
  id: 2,
  name: 'market-data',
  sqlite: `
CREATE TABLE stocks (
  code TEXT PRIMARY KEY CHECK (length(code) = 6),
  name TEXT NOT NULL,
  name_english TEXT,
  market TEXT NOT NULL CHECK (market IN ('KOSPI','KOSDAQ')),
  sector TEXT,
  industry TEXT,
  listing_date TEXT,
  shares_outstanding INTEGER,
  board TEXT,
  settle_month INTEGER,
  is_administrative INTEGER NOT NULL DEFAULT 0,
  is_spac INTEGER NOT NULL DEFAULT 0,
  is_preferred INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);
CREATE INDEX stocks_market_sector ON stocks (market, sector);

CREATE TABLE daily_prices (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  trade_date TEXT NOT NULL,
  open_price REAL NOT NULL CHECK (open_price > 0),
  high_price REAL NOT NULL CHECK (high_price > 0),
  low_price REAL NOT NULL CHECK (low_price > 0),
  close_price REAL NOT NULL CHECK (close_price > 0),
  volume INTEGER NOT NULL CHECK (volume >= 0),
  trading_value INTEGER NOT NULL,
  market_cap INTEGER,
  shares_outstanding INTEGER,
  PRIMARY KEY (stock_code, trade_date)
) WITHOUT ROWID;
CREATE INDEX daily_prices_date ON daily_prices (trade_date);

CREATE TABLE trading_halts (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  trade_date TEXT NOT NULL,
  last_close REAL NOT NULL CHECK (last_close > 0),
  market_cap INTEGER,
  shares_outstanding INTEGER,
  PRIMARY KEY (stock_code, trade_date)
) WITHOUT ROWID;

CREATE TABLE financials (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  fiscal_year INTEGER NOT NULL,
  fiscal_quarter INTEGER NOT NULL CHECK (fiscal_quarter BETWEEN 1 AND 4),
  revenue INTEGER, operating_profit INTEGER, net_profit INTEGER, total_assets INTEGER, equity INTEGER,
  gross_profit INTEGER, operating_cash_flow INTEGER, total_liabilities INTEGER, current_assets INTEGER,
  current_liabilities INTEGER, long_term_debt INTEGER, cash INTEGER, retained_earnings INTEGER,
  shares_outstanding INTEGER, dividends_per_share REAL,
  PRIMARY KEY (stock_code, fiscal_year, fiscal_quarter)
) WITHOUT ROWID;

CREATE TABLE market_index (
  market TEXT NOT NULL CHECK (market IN ('KOSPI','KOSDAQ')),
  trade_date TEXT NOT NULL,
  open REAL, high REAL, low REAL,
  close REAL NOT NULL CHECK (close > 0),
  volume INTEGER, trading_value INTEGER,
  computed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (market, trade_date)
) WITHOUT ROWID;

CREATE TABLE stock_indicators (
  stock_code TEXT PRIMARY KEY REFERENCES stocks(code) ON DELETE CASCADE,
  as_of TEXT NOT NULL,
  values_json TEXT NOT NULL
);

CREATE TABLE indicator_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  version TEXT NOT NULL UNIQUE,
  as_of TEXT,
  stocks INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  computed_at TEXT NOT NULL
);
`,
  postgres: `
CREATE TABLE stocks (
  code TEXT PRIMARY KEY CHECK (length(code) = 6),
  name TEXT NOT NULL,
  name_english TEXT,
  market TEXT NOT NULL CHECK (market IN ('KOSPI','KOSDAQ')),
  sector TEXT,
  industry TEXT,
  listing_date TEXT,
  shares_outstanding BIGINT,
  board TEXT,
  settle_month INTEGER,
  is_administrative INTEGER NOT NULL DEFAULT 0,
  is_spac INTEGER NOT NULL DEFAULT 0,
  is_preferred INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);
CREATE INDEX stocks_market_sector ON stocks (market, sector);

CREATE TABLE daily_prices (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  trade_date TEXT NOT NULL,
  open_price DOUBLE PRECISION NOT NULL CHECK (open_price > 0),
  high_price DOUBLE PRECISION NOT NULL CHECK (high_price > 0),
  low_price DOUBLE PRECISION NOT NULL CHECK (low_price > 0),
  close_price DOUBLE PRECISION NOT NULL CHECK (close_price > 0),
  volume BIGINT NOT NULL CHECK (volume >= 0),
  trading_value BIGINT NOT NULL,
  market_cap BIGINT,
  shares_outstanding BIGINT,
  PRIMARY KEY (stock_code, trade_date)
);
CREATE INDEX daily_prices_date ON daily_prices (trade_date);

CREATE TABLE trading_halts (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  trade_date TEXT NOT NULL,
  last_close DOUBLE PRECISION NOT NULL CHECK (last_close > 0),
  market_cap BIGINT,
  shares_outstanding BIGINT,
  PRIMARY KEY (stock_code, trade_date)
);

CREATE TABLE financials (
  stock_code TEXT NOT NULL REFERENCES stocks(code) ON DELETE CASCADE,
  fiscal_year INTEGER NOT NULL,
  fiscal_quarter INTEGER NOT NULL CHECK (fiscal_quarter BETWEEN 1 AND 4),
  revenue BIGINT, operating_profit BIGINT, net_profit BIGINT, total_assets BIGINT, equity BIGINT,
  gross_profit BIGINT, operating_cash_flow BIGINT, total_liabilities BIGINT, current_assets BIGINT,
  current_liabilities BIGINT, long_term_debt BIGINT, cash BIGINT, retained_earnings BIGINT,
  shares_outstanding BIGINT, dividends_per_share DOUBLE PRECISION,
  PRIMARY KEY (stock_code, fiscal_year, fiscal_quarter)
);

CREATE TABLE market_index (
  market TEXT NOT NULL CHECK (market IN ('KOSPI','KOSDAQ')),
  trade_date TEXT NOT NULL,
  open DOUBLE PRECISION, high DOUBLE PRECISION, low DOUBLE PRECISION,
  close DOUBLE PRECISION NOT NULL CHECK (close > 0),
  volume BIGINT, trading_value BIGINT,
  computed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (market, trade_date)
);

CREATE TABLE stock_indicators (
  stock_code TEXT PRIMARY KEY REFERENCES stocks(code) ON DELETE CASCADE,
  as_of TEXT NOT NULL,
  values_json TEXT NOT NULL
);

CREATE TABLE indicator_runs (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  version TEXT NOT NULL UNIQUE,
  as_of TEXT,
  stocks INTEGER NOT NULL,
  duration_ms BIGINT NOT NULL,
  computed_at TEXT NOT NULL
);
`,
};
