/**
 * The route table is the only thing that knows the routes: every route express serves is in
 * it and in OpenAPI, every configured endpoint limit names a declared route, exemptions are
 * exactly the spec's list, and no other daemon code recognises paths.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

/** Express 5 router layers, as far as this test reads them. */
interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

const routesOf = (router: { stack: Layer[] }, prefix: string) =>
  router.stack.flatMap((l) => (l.route ? Object.keys(l.route.methods).map((m) => `${m.toUpperCase()} ${prefix}${l.route!.path}`) : []));

describe('the route table', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('rl-routes');
  });
  afterAll(() => t.close());

  it('holds every route express serves, and OpenAPI documents each of them', () => {
    const { http } = t.daemon.context();
    const table = http.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    const served = [...routesOf(http.root.router as never, ''), ...routesOf(http.api.router as never, '/api/v1')].sort();
    expect(served).toEqual(table);
    const doc = http.openapi() as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort();
    expect(documented).toEqual(table.map((r) => r.replace(/:(\w+)/g, '{$1}')).sort());
  });

  it('declares a route for every configured endpoint limit', () => {
    const { config } = t.daemon.context().core;
    expect(Object.keys(config.rate_limit.endpoints).length).toBeGreaterThanOrEqual(4);
    expect(t.daemon.context().http.limiter.unusedEndpointLimits()).toEqual([]);
  });

  it('exempts exactly the spec list (health, docs, metrics, templates list, ws stats)', () => {
    const exempt = t.daemon.context().http.routes.filter((r) => r.rateLimitExempt).map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect(exempt).toEqual([
      'GET /api/v1/screen/templates', 'GET /api/v1/ws/stats', 'GET /docs', 'GET /docs/init.js', 'GET /health', 'GET /health/db', 'GET /health/redis',
      'GET /metrics', 'GET /openapi.json', 'GET /redoc',
    ]);
  });

  it('answers a known path asked with another method with 405 and Allow, and OPTIONS with 204', async () => {
    const res = await fetch(`${t.url}/api/v1/auth/login`, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('OPTIONS, POST');
    const body = (await res.json()) as { status: string; error: { code: string } };
    expect(body).toMatchObject({ status: 'error', error: { code: 'METHOD_NOT_ALLOWED' } });
    const options = await fetch(`${t.url}/v1/stocks/005930`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await fetch(`${t.url}/api/v1/no-such-thing`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('no daemon code outside the route table recognises paths', () => {
  const root = join(import.meta.dirname, '../../../daemon');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  // The table (api.ts, method-table.ts) and the edges that only print a path (404 message, metrics label).
  const allowed = new Set(['http/api.ts', 'http/method-table.ts', 'http/middleware/errors.ts', 'http/app.ts']);

  it('reads req.path / req.originalUrl / req.url nowhere else', () => {
    const offenders = files(root)
      .map((f) => f.slice(root.length + 1))
      .filter((f) => !allowed.has(f) && !f.startsWith('ws/'))
      .filter((f) => /\breq\.(path|originalUrl|url)\b/.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
