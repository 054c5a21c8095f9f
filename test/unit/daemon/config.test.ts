import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../daemon/config.js';
import { VERSION } from '../../../daemon/version.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

function configFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'ss-config-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('config', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({ env: { XDG_DATA_HOME: '/srv/data' } });
    expect(c).toMatchObject({
      host: '127.0.0.1', port: 8000, redis_url: 'redis://127.0.0.1:6379', redis_prefix: 'stockscreen:', body_limit: '1mb',
      data_dir: '/srv/data/stockscreen', trust_proxy: false, redis_command_timeout_ms: 500,
    });
    expect(c.rate_limit.tiers.free).toEqual({ per_hour: 100, per_day: 2400 });
    expect(c.rate_limit.endpoints).toEqual({ 'POST /screen': 50, 'GET /stocks/{code}': 200, 'POST /auth/register': 10, 'POST /auth/login': 10 });
    expect(c.alert_caps).toEqual({ free: 10, basic: 100, pro: 1000, enterprise: null });
  });

  it('computes the default data dir from the environment it is given, not the process environment', () => {
    // Given two environments that differ only in XDG_DATA_HOME / HOME
    // When each is loaded
    const xdg = loadConfig({ env: { XDG_DATA_HOME: '/xdg/a', HOME: '/home/u' } });
    const home = loadConfig({ env: { HOME: '/home/u' } });
    // Then each data dir follows its own environment
    expect(xdg.data_dir).toBe('/xdg/a/stockscreen');
    expect(home.data_dir).toBe('/home/u/.local/share/stockscreen');
    expect(loadConfig({ env: { XDG_DATA_HOME: '/xdg/a' }, flags: { data_dir: '/flag/dir' } }).data_dir).toBe('/flag/dir');
  });

  it('merges one endpoint limit over the spec defaults, and null removes one', () => {
    // Given a config that overrides one endpoint limit and removes another
    const c = loadConfig({ env: { STOCKSCREEN_RATE_LIMIT: JSON.stringify({ endpoints: { 'post /screen': 100, 'GET /stocks/{code}': null } }) } });
    // Then the other defaults are kept, and the key is normalised
    expect(c.rate_limit.endpoints).toEqual({ 'POST /screen': 100, 'POST /auth/register': 10, 'POST /auth/login': 10 });
  });

  it('accepts a partial tier and partial alert caps, keeping the defaults of what is left out', () => {
    const file = configFile({ rate_limit: { tiers: { free: { per_hour: 200 } } }, alert_caps: { free: 5 } });
    const c = loadConfig({ file, env: { STOCKSCREEN_RATE_LIMIT: JSON.stringify({ tiers: { pro: { per_day: 300000 } } }) } });
    // The file's free override and the env's pro override are merged, not replaced
    expect(c.rate_limit.tiers.free).toEqual({ per_hour: 200, per_day: 2400 });
    expect(c.rate_limit.tiers.pro).toEqual({ per_hour: 10000, per_day: 300000 });
    expect(c.rate_limit.tiers.basic).toEqual({ per_hour: 1000, per_day: 24000 });
    expect(c.alert_caps).toEqual({ free: 5, basic: 100, pro: 1000, enterprise: null });
  });

  it('takes backtest limits per tier from JSON in the environment, keeping the other tiers\' defaults', () => {
    const c = loadConfig({ env: { STOCKSCREEN_BACKTEST_LIMITS: '{"free":1,"enterprise":null}', STOCKSCREEN_BACKTEST_WORKERS: '0' } });
    expect(c.backtest_limits).toEqual({ free: 1, basic: 3, pro: 5, enterprise: null });
    expect(c).toMatchObject({ backtest_workers: 0, backtest_queue_max: 100, worker_backtests: 0 });
    expect(loadConfig({ env: {} }).backtest_limits).toEqual({ free: 2, basic: 3, pro: 5, enterprise: 10 });
  });

  it('preloads the as-of history only when asked (STOCKSCREEN_AS_OF_PRELOAD)', () => {
    expect(loadConfig({ env: {} }).as_of_preload).toBe(false);
    expect(loadConfig({ env: { STOCKSCREEN_AS_OF_PRELOAD: 'true' } }).as_of_preload).toBe(true);
  });

  it('rejects a typo inside rate_limit instead of ignoring it', () => {
    expect(() => loadConfig({ env: { STOCKSCREEN_RATE_LIMIT: '{"tiers":{"free":{"per_hr":5}}}' } })).toThrow(/per_hr/);
  });

  it('names the variable holding bad JSON and still reports every other problem', () => {
    // Given bad JSON in two variables and a bad port
    let err: unknown;
    try {
      loadConfig({ env: { STOCKSCREEN_RATE_LIMIT: '{tiers:', STOCKSCREEN_ALERT_CAPS: 'nope', STOCKSCREEN_PORT: '-1' } });
    } catch (e) {
      err = e;
    }
    // Then one line per problem, each naming its source
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^STOCKSCREEN_RATE_LIMIT: not valid JSON \(.+\)$/),
        expect.stringMatching(/^STOCKSCREEN_ALERT_CAPS: not valid JSON \(.+\)$/),
        expect.stringMatching(/^port: /),
      ]),
    );
  });

  it('reports an unreadable or non-JSON config file along with the other problems', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ss-config-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ not json');
    const problems = problemsOf(() => loadConfig({ file: bad, flags: { port: 'x' } }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/bad\.json is not valid JSON/);
    expect(problemsOf(() => loadConfig({ file: join(dir, 'missing.json') }))[0]).toMatch(/cannot read .*missing\.json/);
  });

  it('requires STOCKSCREEN_ADMIN_EMAIL and STOCKSCREEN_ADMIN_PASSWORD together', () => {
    expect(problemsOf(() => loadConfig({ env: { STOCKSCREEN_ADMIN_EMAIL: 'root@example.com' } }))).toEqual([
      expect.stringMatching(/^admin_password: required when admin_email is set/),
    ]);
    expect(problemsOf(() => loadConfig({ env: { STOCKSCREEN_ADMIN_PASSWORD: 'long enough' } }))).toEqual([
      expect.stringMatching(/^admin_email: required when admin_password is set/),
    ]);
    expect(loadConfig({ env: { STOCKSCREEN_ADMIN_EMAIL: 'root@example.com', STOCKSCREEN_ADMIN_PASSWORD: 'long enough' } }).admin_email).toBe('root@example.com');
  });

  it('reads trust_proxy as one hop (flag alone or true), a hop count, or a list of proxy addresses', () => {
    expect(loadConfig({ flags: { trust_proxy: true } }).trust_proxy).toBe(1);
    expect(loadConfig({ env: { STOCKSCREEN_TRUST_PROXY: 'true' } }).trust_proxy).toBe(1);
    expect(loadConfig({ env: { STOCKSCREEN_TRUST_PROXY: '2' } }).trust_proxy).toBe(2);
    expect(loadConfig({ env: { STOCKSCREEN_TRUST_PROXY: 'false' } }).trust_proxy).toBe(false);
    expect(loadConfig({ flags: { trust_proxy: '10.0.0.0/8, 127.0.0.1,fd00::/8, loopback' } }).trust_proxy).toEqual(['10.0.0.0/8', '127.0.0.1', 'fd00::/8', 'loopback']);
    expect(loadConfig({ file: configFile({ trust_proxy: ['192.168.0.0/255.255.0.0'] }) }).trust_proxy).toEqual(['192.168.0.0/255.255.0.0']);
    expect(problemsOf(() => loadConfig({ flags: { trust_proxy: 'worker' } }))[0]).toMatch(/^trust_proxy\b/);
    expect(problemsOf(() => loadConfig({ flags: { trust_proxy: '10.0.0.0/33' } }))[0]).toMatch(/^trust_proxy\b/);
  });

  it('applies flag > STOCKSCREEN_* env > config file > default', () => {
    const file = configFile({ port: 7000, host: '0.0.0.0', redis_prefix: 'file:' });
    const env = { STOCKSCREEN_PORT: '7100', STOCKSCREEN_REDIS_PREFIX: 'env:' };
    const c = loadConfig({ flags: { port: '7200', config: file }, env });
    expect(c.port).toBe(7200); // flag wins
    expect(c.redis_prefix).toBe('env:'); // env beats file
    expect(c.host).toBe('0.0.0.0'); // file beats default
  });

  it('reads REDIS_URL and DATABASE_URL as aliases', () => {
    const c = loadConfig({ env: { REDIS_URL: 'redis://10.0.0.5:6380', DATABASE_URL: 'postgres://db/x' } });
    expect(c.redis_url).toBe('redis://10.0.0.5:6380');
    expect(c.database_url).toBe('postgres://db/x');
  });

  it('reports one clear line per bad setting', () => {
    let err: unknown;
    try {
      loadConfig({ flags: { port: '99999', redis_url: 'http://nope' }, env: { STOCKSCREEN_LOG_LEVEL: 'loud' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/^port: /m);
    expect(problems.join('\n')).toMatch(/^redis_url: /m);
    expect(problems.join('\n')).toMatch(/^log_level: /m);
  });

  it('rejects unknown keys in a config file instead of ignoring a typo', () => {
    const file = configFile({ prot: 1 });
    expect(() => loadConfig({ file })).toThrow(/prot/);
  });

  it('is frozen', () => {
    const c = loadConfig({ env: {} });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('keeps VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(VERSION).toBe(pkg.version);
  });
});
