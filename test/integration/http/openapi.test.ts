import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Router } from 'express';
import { toOpenApiPath } from '../../../daemon/http/api.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

/** Every (method, path) the express router really serves, read from its stack. */
function servedRoutes(router: Router, prefix: string): string[] {
  const out: string[] = [];
  for (const layer of router.stack as any[]) {
    if (!layer.route) continue;
    for (const method of Object.keys(layer.route.methods)) out.push(`${method.toUpperCase()} ${toOpenApiPath(prefix + layer.route.path)}`);
  }
  return out;
}

describe('OpenAPI document and documentation pages', () => {
  let t: TestDaemon;
  let doc: any;
  beforeAll(async () => {
    t = await startTestDaemon('openapi');
    doc = await (await t.request('/openapi.json')).json();
  });
  afterAll(() => t.close());

  it('is OpenAPI 3.1 with a bearer security scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents every route the app serves (derived from the routers)', () => {
    const { http } = t.daemon.context();
    const served = [...servedRoutes(http.root.router, ''), ...servedRoutes(http.api.router, '/api/v1')];
    expect(served.length).toBeGreaterThan(8);
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<any>(doc.paths)) for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
    const missing = served.filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
  });

  it('documents both shapes of POST /alerts: price alerts and alerts on a preset\'s screen', () => {
    const body = doc.paths['/api/v1/alerts'].post.requestBody.content['application/json'].schema;
    expect(body.properties.alert_type.enum).toEqual(expect.arrayContaining(['price_above', 'screen_enter', 'screen_exit']));
    expect(body.properties.preset_id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(body.required).toEqual(['alert_type']);
    expect(doc.components.schemas.Alert.properties.preset_id.type).toEqual(['string', 'null']);
    expect(doc.components.schemas.AlertFiring.properties.preset_id.type).toEqual(['string', 'null']);
  });

  it('documents the answers of the stock and job endpoints from the contract\'s schemas', () => {
    const data = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema.properties.data;
    expect(data('/api/v1/stocks/{code}', 'get', '200').$ref).toBe('#/components/schemas/StockDetail');
    expect(data('/api/v1/stocks/{code}/price', 'get', '200').$ref).toBe('#/components/schemas/StockPrice');
    expect(data('/api/v1/stocks/{code}/history', 'get', '200').items.$ref).toBe('#/components/schemas/PriceBar');
    expect(data('/api/v1/stocks/{code}/financials', 'get', '200').items.$ref).toBe('#/components/schemas/FinancialRow');
    expect(data('/api/v1/stocks', 'get', '200').items.properties.market.enum).toEqual(['KOSPI', 'KOSDAQ']);
    expect(data('/api/v1/admin/jobs/{id}', 'get', '200').$ref).toBe('#/components/schemas/JobView');
    expect(data('/api/v1/admin/sources/{source}/sync', 'post', '202').$ref).toBe('#/components/schemas/JobView');
    expect(doc.components.schemas.StockPrice.properties.source.enum).toEqual(['live', 'close']);
    expect(doc.components.schemas.JobView.properties.state.enum).toContain('stalled');
  });

  it('marks protected operations with bearer security and public ones without', () => {
    expect(doc.paths['/api/v1/users/me'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/v1/auth/login'].post.security).toEqual([]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/api/v1/users/me'].get.responses['401']).toBeDefined();
    expect(doc.paths['/api/v1/admin/users'].get.responses['403']).toBeDefined();
  });

  it('describes the health 503 bodies as sent ({status:"unhealthy", …:"disconnected"}), not as the error envelope', () => {
    const resolve = (schema: any) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
    for (const [path, field] of [['/health/db', 'database'], ['/health/redis', 'redis']] as const) {
      const schema = doc.paths[path].get.responses['503'].content['application/json'].schema;
      const variants = (schema.anyOf ?? schema.oneOf).map(resolve);
      const health = variants.find((v: any) => v.properties?.[field]);
      expect(health, path).toBeDefined();
      expect(health.properties.status.enum).toContain('unhealthy');
      expect(health.properties[field].enum).toContain('disconnected');
      expect(health.required).toEqual(expect.arrayContaining(['status', field, 'timestamp']));
    }
  });

  it('describes request bodies from the validating schemas', () => {
    const schema = doc.paths['/api/v1/auth/register'].post.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['email', 'password']));
    expect(schema.properties.password.minLength).toBe(10);
  });

  it('serves Swagger UI and ReDoc pages whose assets load locally', async () => {
    for (const [page, asset] of [
      ['/docs', '/docs/assets/swagger-ui-bundle.js'],
      ['/redoc', '/redoc/assets/redoc.standalone.js'],
    ] as const) {
      const res = await t.request(page);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const html = await res.text();
      expect(html).toContain(asset);
      expect(html).not.toMatch(/https?:\/\//); // no CDN
      const js = await t.request(asset);
      expect(js.status).toBe(200);
      expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    }
  });

  it('starts Swagger UI without its online validator (nothing is fetched from outside)', async () => {
    const init = await (await t.request('/docs/init.js')).text();
    expect(init).toMatch(/validatorUrl:\s*null/);
    expect(init).not.toMatch(/https?:\/\//);
  });
});
