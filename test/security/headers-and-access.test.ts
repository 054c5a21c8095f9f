/**
 * The response header policy, the access rules of the monitoring endpoints, and the modes
 * of the files the daemon writes.
 */
import { chmod, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/infra/logger.js';
import { startTestDaemon } from '../helpers/test-daemon.js';
import { expectError, startSecurityDaemon, type SecurityDaemon } from './harness.js';

const METRICS_TOKEN = 'scrape-token-scrape-token-scrape-token';

describe('headers and access', () => {
  let s: SecurityDaemon;
  let user: { email: string; access_token: string; refresh_token: string };
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-headers', { metrics_token: METRICS_TOKEN });
    user = await s.t.login();
  });
  afterAll(() => s?.t.close());

  it('sends nosniff, no-referrer, DENY and a deny-all CSP on every kind of answer', async () => {
    for (const [path, init] of [
      ['/health', {}], ['/openapi.json', {}], ['/api/v1/users/me', {}], ['/api/v1/nowhere', {}], ['/docs/assets/swagger-ui.css', {}],
      ['/api/v1/auth/login', { method: 'POST', body: '{bad', headers: { 'content-type': 'application/json' } }],
    ] as const) {
      const res = await s.t.request(path, init as RequestInit);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('content-security-policy'), path).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it('keeps token answers out of caches (login, register, refresh)', async () => {
    const email = `c-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const register = await s.t.request('/api/v1/auth/register', { method: 'POST', json: { email, password: 'correct horse battery' } });
    const login = await s.t.request('/api/v1/auth/login', { method: 'POST', json: { email, password: 'correct horse battery' } });
    const refresh = await s.t.request('/v1/auth/refresh', { method: 'POST', json: { refresh_token: user.refresh_token } });
    for (const res of [register, login, refresh]) {
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('serves the documentation pages under a strict CSP that their (local) assets satisfy', async () => {
    for (const page of ['/docs', '/redoc']) {
      const res = await s.t.request(page);
      const csp = res.headers.get('content-security-policy') ?? '';
      const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
      expect(directives['default-src']).toEqual(["'none'"]);
      expect(directives['script-src']?.[0]).toBe("'self'");
      expect(directives['script-src']).not.toContain("'unsafe-inline'");
      expect(directives['frame-ancestors']).toEqual(["'none'"]);
      expect(directives['connect-src']).toEqual(["'self'"]);
      // Every script and stylesheet the page names is served here (no CDN), and no inline script
      const html = await res.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of assets) {
        expect(asset.startsWith('/'), asset).toBe(true);
        expect((await s.t.request(asset)).status, asset).toBe(200);
      }
      expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>[^<]/);
    }
  });

  it('opens /metrics only to the scrape token and admins', async () => {
    await expectError(await s.t.request('/metrics'), 401, 'UNAUTHORIZED');
    await expectError(await s.t.request('/metrics', { token: 'wrong-token-wrong-token-wrong-token' }), 401, 'UNAUTHORIZED');
    await expectError(await s.t.request('/metrics', { token: user.access_token }), 403, 'FORBIDDEN');
    for (const token of [METRICS_TOKEN, s.adminToken]) {
      const res = await s.t.request('/metrics', { token });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('stockscreen_');
    }
  });

  it('serves /v1/ws/stats to signed-in users only, and says so in OpenAPI', async () => {
    await expectError(await s.t.request('/v1/ws/stats'), 401, 'UNAUTHORIZED');
    expect((await s.t.request('/v1/ws/stats', { token: user.access_token })).status).toBe(200);
    const doc = (await (await s.t.request('/openapi.json')).json()) as any;
    expect(doc.paths['/api/v1/ws/stats'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/metrics'].get.description).toMatch(/metrics_token/);
    expect(Object.keys(doc.paths['/metrics'].get.responses)).toEqual(expect.arrayContaining(['401', '403']));
  });
});

describe('metrics_public', () => {
  it('opens /metrics to anyone when set', async () => {
    const t = await startTestDaemon('sec-metrics-public', { metrics_public: true });
    try {
      expect((await t.request('/metrics')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('files', () => {
  it('creates the database, its WAL and SHM and the generated secret 0600, and warns about a data directory open to others', async () => {
    // Given a data directory other users may read
    const dir = await mkdtemp(join(tmpdir(), 'sec-files-'));
    await chmod(dir, 0o755);
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    // When a daemon starts there without a configured secret
    const t = await startTestDaemon('sec-files', { data_dir: dir, jwt_secret: undefined }, { logger });
    try {
      await t.login();
      // Then every file it made is private
      for (const name of ['stockscreen.db', 'stockscreen.db-wal', 'stockscreen.db-shm', 'jwt-secret']) {
        expect(((await stat(join(dir, name))).mode & 0o777).toString(8), name).toBe('600');
      }
      // And it said the directory is open
      const warning = lines.map((l) => JSON.parse(l)).find((e) => /data directory is open/.test(e.msg));
      expect(warning).toMatchObject({ mode: '0755', data_dir: dir });
    } finally {
      await t.close();
    }
  });
});
