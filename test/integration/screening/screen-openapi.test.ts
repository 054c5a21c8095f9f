/**
 * The indicator registry drives the OpenAPI description of the screening request:
 * /openapi.json lists shape A `filters.<indicator>` ranges, shape B
 * `min_<id>`/`max_<id>` bounds and the sort/fields enums for every registered
 * indicator, while runtime validation still answers its own 400 with details.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDICATOR_IDS, INDICATORS } from '../../../daemon/indicators/registry.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('screening request in /openapi.json', () => {
  let t: TestDaemon;
  let doc: any;
  let schema: any;
  beforeAll(async () => {
    t = await startTestDaemon('screen-openapi');
    doc = await (await t.request('/openapi.json')).json();
    const body = doc.paths['/api/v1/screen'].post.requestBody.content['application/json'].schema;
    schema = body.$ref ? doc.components.schemas[body.$ref.replace('#/components/schemas/', '')] : body;
  });
  afterAll(() => t.close());

  it('documents a {min, max} range under filters for every indicator (shape A)', () => {
    const filters = schema.properties.filters.properties;
    for (const d of INDICATORS) {
      expect(filters[d.id], d.id).toMatchObject({ properties: { min: { type: ['number', 'null'] }, max: { type: ['number', 'null'] } }, additionalProperties: false });
      expect(filters[d.id].description).toContain(d.label_en);
    }
    expect(filters.market.enum).toEqual(expect.arrayContaining(['KOSPI', 'KOSDAQ', 'ALL']));
    expect(schema.properties.filters.additionalProperties).toBe(false);
  });

  it('documents min_<id> and max_<id> for every indicator (shape B) and nothing open-ended', () => {
    for (const id of INDICATOR_IDS) {
      expect(schema.properties[`min_${id}`], id).toMatchObject({ type: ['number', 'null'] });
      expect(schema.properties[`max_${id}`], id).toMatchObject({ type: ['number', 'null'] });
    }
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).filter((k) => /^(min|max)_/.test(k))).toHaveLength(2 * INDICATOR_IDS.length);
  });

  it('lists the valid sort fields and output fields as enums', () => {
    const sortField = schema.properties.sort.items.properties.field.enum;
    // Plus the score column; a request's own formula columns are valid too (named in the description).
    expect([...sortField].sort()).toEqual([...INDICATOR_IDS, 'code', 'name', 'score'].sort());
    expect(schema.properties.sort_by.enum).toEqual(expect.arrayContaining([...INDICATOR_IDS, 'code', 'name']));
    expect(schema.properties.fields.items.enum).toEqual(expect.arrayContaining([...INDICATOR_IDS, 'industry', 'name_english', 'board']));
    expect(schema.properties.exclude.items.enum).toEqual(['administrative', 'spac', 'preferred', 'halted']);
  });

  it('documents the whole answer of every way of running a screen: the shape-B fields and the meta, explain included', () => {
    const ref = (schema: any) => doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
    for (const [path, method] of [['/api/v1/screen', 'post'], ['/api/v1/screening', 'post'], ['/api/v1/screen/templates/{template}', 'post']] as const) {
      const answer = ref(doc.paths[path][method].responses['200'].content['application/json'].schema);
      expect(answer.required, path).toEqual(expect.arrayContaining(['status', 'data', 'stocks', 'query_time_ms', 'filters_applied', 'meta']));
      expect(Object.keys(answer.properties.meta.properties), path).toEqual(expect.arrayContaining(['total', 'per_page', 'snapshot_version', 'cached', 'as_of', 'columns', 'explain']));
    }
    const field = ref(doc.paths['/api/v1/screen/fields'].get.responses['200'].content['application/json'].schema.properties.data.items);
    expect(field.required).toEqual(expect.arrayContaining(['id', 'label_en', 'unit', 'coverage']));
  });

  it('still validates at runtime with field details and the list of valid names', async () => {
    const { access_token } = await t.login();
    const res = await t.request('/api/v1/screen', { method: 'POST', token: access_token, json: { min_bogus: 1, filters: { nope: { min: 1 } } } });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as any;
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.details['min_bogus']).toMatch(/unknown indicator 'bogus'/);
    expect(error.details['filters.nope']).toMatch(/unknown indicator 'nope'/);
    expect(error.details.valid_fields).toEqual(expect.arrayContaining([...INDICATOR_IDS]));
    const ok = await t.request('/api/v1/screen', { method: 'POST', token: access_token, json: { min_per: 1, filters: { roe: { min: 5 } } } });
    expect(ok.status).toBe(200);
  });
});
