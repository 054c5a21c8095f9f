/**
 * Starts a real daemon for a test file: port 0, a temp data dir, a real Redis under a
 * unique key prefix (deleted on close), logging silenced. Also small HTTP helpers.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { inject } from 'vitest';
import { parseConfig, type ConfigInput } from '../../daemon/config.js';
import { createDaemon, type Daemon, type DaemonOverrides } from '../../daemon/daemon.js';
import { createLogger } from '../../daemon/infra/logger.js';
import type { StoreSettings } from '../../daemon/store/open.js';
import { deletePrefix } from '../../loadtest/bench/redis.js';
import { freshStoreSettings } from './test-store.js';

/** A started test daemon. */
export interface TestDaemon {
  daemon: Daemon;
  url: string;
  prefix: string;
  dataDir: string;
  /** Where its data lives (pass `...t.store` to another daemon to share the database). */
  store: StoreSettings & { data_dir: string };
  /** fetch relative to the daemon's URL; JSON bodies are encoded for you. */
  request(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>;
  /** Register + log in a fresh user; returns its tokens. */
  login(email?: string, password?: string): Promise<{ email: string; access_token: string; refresh_token: string; id: string }>;
  close(): Promise<void>;
}

/** The Redis URL the global setup made sure of. */
export function testRedisUrl(): string {
  return inject('redisUrl');
}

/** A unique key prefix for one test file/run. */
export function testPrefix(label: string): string {
  return `sstest:${label}:${randomUUID().slice(0, 8)}:`;
}

/** Delete every key under `prefix` (shared with the bench). */
export const deleteKeys = deletePrefix;

/**
 * Start a daemon for tests; `config` overrides defaults. Storage is a fresh store of
 * this pass's backend (sqlite, or a new PostgreSQL schema) unless `config` names one.
 */
export async function startTestDaemon(label: string, config: Partial<ConfigInput> = {}, overrides: DaemonOverrides = {}): Promise<TestDaemon> {
  const store = config.data_dir ? { data_dir: config.data_dir, database_url: config.database_url, database_schema: config.database_schema } : await freshStoreSettings(label);
  const dataDir = store.data_dir;
  const prefix = config.redis_prefix ?? testPrefix(label);
  const redisUrl = config.redis_url ?? testRedisUrl();
  const cfg = parseConfig({
    host: '127.0.0.1',
    port: 0,
    redis_url: redisUrl,
    redis_prefix: prefix,
    log_level: 'silent',
    ...store,
    jwt_secret: 'test-secret-test-secret-test-secret-0123456789',
    workers: 0,
    feed: 'off',
    // Every test request comes from 127.0.0.1: rate limits are off unless a test turns them on.
    rate_limit: { enabled: false },
    // Production hashes cost N=2^17 (test/security/passwords.test.ts proves the default); 2^12 keeps logins cheap here.
    password_scrypt_log_n: 12,
    // A POST /screen/backtest waits for the history however busy the machine is, so a test reads the
    // planned run (its total, or a 400) at once; tests of the phases before it set 0.
    backtest_plan_wait_ms: 60_000,
    ...config,
  });
  const daemon = createDaemon(cfg, { logger: createLogger('silent'), ...overrides });
  await daemon.start();
  const url = daemon.url();

  const request: TestDaemon['request'] = (path, init = {}) => {
    const { json, token, headers, ...rest } = init;
    const h = new Headers(headers);
    if (json !== undefined) h.set('content-type', 'application/json');
    if (token) h.set('authorization', `Bearer ${token}`);
    return fetch(url + path, { ...rest, headers: h, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };

  return {
    daemon,
    url,
    prefix,
    dataDir,
    store,
    request,
    async login(email = `u-${randomUUID().slice(0, 8)}@example.com`, password = 'correct horse battery') {
      await request('/api/v1/auth/register', { method: 'POST', json: { email, password } });
      const res = await request('/api/v1/auth/login', { method: 'POST', json: { email, password } });
      const body = (await res.json()) as { data: { access_token: string; refresh_token: string } };
      const me = (await (await request('/api/v1/users/me', { token: body.data.access_token })).json()) as { data: { id: string } };
      return { email, ...body.data, id: me.data.id };
    },
    async close() {
      await daemon.close();
      await deleteKeys(redisUrl, prefix);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
