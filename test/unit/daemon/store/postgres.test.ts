import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../../../daemon/config.js';
import { postgresLabel, toPositional } from '../../../../daemon/store/postgres.js';

describe('toPositional', () => {
  it('numbers the placeholders in order', () => {
    expect(toPositional('SELECT * FROM t WHERE a = ? AND b IN (SELECT value FROM json_array_elements_text(?::json)) LIMIT ?')).toBe(
      'SELECT * FROM t WHERE a = $1 AND b IN (SELECT value FROM json_array_elements_text($2::json)) LIMIT $3',
    );
  });
  it('leaves question marks inside string literals and quoted identifiers alone', () => {
    expect(toPositional(`SELECT '?' AS "why?", x FROM t WHERE note = 'a ''?'' b' AND id = ?`)).toBe(`SELECT '?' AS "why?", x FROM t WHERE note = 'a ''?'' b' AND id = $1`);
  });
});

describe('postgresLabel', () => {
  it('never shows the password', () => {
    expect(postgresLabel('postgres://ss:s3cret@db1.internal:5433/stockscreen', 'prod')).toBe('postgres://ss@db1.internal:5433/stockscreen (schema prod)');
    expect(postgresLabel('postgres://127.0.0.1/x')).toBe('postgres://127.0.0.1/x');
  });
});

describe('database settings', () => {
  it('accepts postgres:// URLs and a schema name, and refuses anything else with a clear message', () => {
    expect(loadConfig({ env: { DATABASE_URL: 'postgresql://ss@db1/stockscreen', STOCKSCREEN_DATABASE_SCHEMA: 'prod' } })).toMatchObject({ database_url: 'postgresql://ss@db1/stockscreen', database_schema: 'prod' });
    const err = (() => {
      try {
        loadConfig({ flags: { database_url: 'mysql://db1/x', database_schema: 'Drop Table' } });
      } catch (e) {
        return e;
      }
    })() as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems.join('\n')).toMatch(/database_url.*postgres:\/\//);
    expect(err.problems.join('\n')).toMatch(/database_schema.*lower-case/);
  });
});
