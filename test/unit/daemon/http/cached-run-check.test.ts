import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { createCachedRunCheck } from '../../../../daemon/http/routes/screen.js';
import { INDICATOR_IDS } from '../../../../daemon/indicators/registry.js';
import { createScreenService, type ResultCache } from '../../../../daemon/screening/screen-service.js';
import { emptySnapshot } from '../../../../daemon/screening/snapshot.js';
import { applyTemplateOverrides, requireTemplate } from '../../../../daemon/screening/templates.js';
import type { Preset } from '../../../../daemon/store/presets-repo.js';

const PRESET_ID = '6f1c1f0e-1111-4222-8333-944455556666';
const OWNER = 'user-1';

function setup() {
  const store = new Map<string, string>();
  const cache: ResultCache = { get: async (k) => store.get(k) ?? null, set: async (k, v) => void store.set(k, v) };
  const snapshot = emptySnapshot(INDICATOR_IDS, 'v1');
  const knownFields = new Set<string>(INDICATOR_IDS);
  const screens = createScreenService({ snapshot: { current: () => snapshot, refresh: async () => snapshot, lastBuild: () => undefined }, cache, ttlSeconds: 300, knownFields });
  const preset = { id: PRESET_ID, name: 'cheap', description: null, query: { max_per: 10 } } as unknown as Preset;
  const presets = { get: async (user: string, id: string) => (user === OWNER && id === PRESET_ID ? preset : undefined) };
  const check = createCachedRunCheck({ screens, knownFields, presets });
  const req = (path: string, body: unknown = {}, user: string | null = OWNER, accept = 'application/json') =>
    ({
      method: 'POST', path, body, query: {}, user: user === null ? undefined : { id: user },
      // Enough of express's content negotiation for wantsCsv.
      accepts: (types: string | string[]) => ([types].flat().includes(accept) ? accept : false),
    }) as unknown as Request;
  return { screens, check, req };
}

describe('createCachedRunCheck (the rate limiter\'s isFreeRequest)', () => {
  it('frees /screen and /screening only once their answer is cached', async () => {
    const { screens, check, req } = setup();
    const body = { max_per: 10, market: 'KOSPI' };
    expect(await check(req('/screen', body))).toBe(false);
    await screens.run(screens.parse(body));
    expect(await check(req('/screen', body))).toBe(true);
    expect(await check(req('/screening', { market: 'kospi', filters: { per: { max: 10 } } }))).toBe(true);
    expect(await check(req('/screen', { min_bogus: 1 }))).toBe(false);
  });

  it('frees a template run whose query (with the body\'s overrides) is cached', async () => {
    const { screens, check, req } = setup();
    const overrides = { market: 'KOSDAQ' as const, page: 2 };
    expect(await check(req('/screen/templates/value', overrides))).toBe(false);
    // The same cache entry, whichever route filled it.
    await screens.run(applyTemplateOverrides(requireTemplate('value'), overrides));
    expect(await check(req('/screen/templates/value', overrides))).toBe(true);
    expect(await check(req('/screen/templates/value', { market: 'KOSPI' }))).toBe(false);
    expect(await check(req('/screen/templates/no-such', overrides))).toBe(false);
    expect(await check(req('/screen/templates/value', { sort: [{ field: 'nope' }] }))).toBe(false);
  });

  it('frees the owner\'s preset run when its query is cached, never another user\'s', async () => {
    const { screens, check, req } = setup();
    const path = `/screen/presets/${PRESET_ID}/run`;
    expect(await check(req(path))).toBe(false);
    await screens.run(screens.parse({ max_per: 10 }));
    expect(await check(req(path))).toBe(true);
    expect(await check(req(path, {}, 'someone-else'))).toBe(false);
    expect(await check(req(path, {}, null))).toBe(false); // not authenticated
  });

  it('counts everything else, CSV exports of a cached query included', async () => {
    const { screens, check, req } = setup();
    await screens.run(screens.parse({ max_per: 10 }));
    expect(await check(req('/screen', { max_per: 10 }, OWNER, 'text/csv'))).toBe(false);
    expect(await check(req('/screen', { max_per: 10, format: 'csv' }))).toBe(false);
    expect(await check(req('/screen/presets'))).toBe(false);
    expect(await check({ ...req('/screen'), method: 'GET' } as Request)).toBe(false);
  });
});
