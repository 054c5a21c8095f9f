/**
 * A seeded random fuzz of every route in the daemon's route list: bodies, parameters,
 * content types and credentials (fuzz-requests.ts). Every answer must be below 500, show
 * no stack trace, and carry the error envelope when it is an error.
 *
 * CI runs a fixed seed; a longer local run:
 *   STOCKSCREEN_FUZZ_SEED=7 STOCKSCREEN_FUZZ_COUNT=20000 npx vitest run --project sqlite test/security/fuzz.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toOpenApiPath } from '../../daemon/http/api.js';
import { createRandom, generateRequest, type FuzzRequest, type FuzzRoute, type FuzzWorld } from './fuzz-requests.js';
import { ADMIN, CODES, leaksStack, readBody, startSecurityDaemon, type SecurityDaemon } from './harness.js';

const SEED = Number(process.env.STOCKSCREEN_FUZZ_SEED ?? 20261125);
const COUNT = Number(process.env.STOCKSCREEN_FUZZ_COUNT ?? 1000);

/** What one request broke, for the failure message (replay: same seed, this index). */
interface Finding {
  index: number;
  request: string;
  status: number;
  problem: string;
  body: string;
}

function describeRequest(req: FuzzRequest): string {
  return `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers).slice(0, 200)} ${req.body?.slice(0, 200) ?? ''}`;
}

async function check(res: Response): Promise<string | undefined> {
  const { text, json } = await readBody(res);
  if (res.status >= 500) return '5xx';
  if (leaksStack(text)) return 'stack trace';
  if (res.status >= 400 && !(json?.status === 'error' && typeof json.error?.code === 'string' && json.error.details && json.meta?.request_id)) return 'no error envelope';
  return undefined;
}

describe('random fuzz of every route', () => {
  let s: SecurityDaemon;
  let world: FuzzWorld;
  let routes: FuzzRoute[];
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-fuzz', { feed: 'ingest', market_clock: 'always-open' });
    const user = await s.t.login();
    const other = await s.t.login();
    const doc = (await (await s.t.request('/openapi.json')).json()) as any;
    const preset = (await (await s.t.request('/api/v1/screen/presets', { method: 'POST', token: user.access_token, json: { name: 'p', query: {} } })).json()) as any;
    // A channel of the user's to aim at (Telegram: made without reaching anything; its sends fail fast here).
    const channel = (await (await s.t.request('/api/v1/channels', { method: 'POST', token: user.access_token, json: { type: 'telegram', name: 't', bot_token: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chat_id: '42' } })).json()) as any;
    routes = s.t.daemon.context().http.routes.map((r) => ({ method: r.method, path: r.path, access: r.access }));
    world = {
      ids: [user.id, other.id, preset.data.id, channel.data.id, crypto.randomUUID(), '00000000-0000-0000-0000-000000000000'],
      codes: [...CODES, '999999'],
      tokens: { user: user.access_token, admin: s.adminToken, other: other.access_token },
      operation: (route) => doc.paths[toOpenApiPath(route.path)]?.[route.method],
      resolve: (schema) => (schema.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop()!] : schema),
    };
  });
  afterAll(() => s?.t.close());

  async function renewSessions(): Promise<void> {
    const admin = await s.t.request('/api/v1/auth/login', { method: 'POST', json: ADMIN });
    world.tokens = { user: (await s.t.login()).access_token, other: (await s.t.login()).access_token, admin: ((await admin.json()) as any).access_token };
  }

  it(`answers ${COUNT} hostile requests (seed ${SEED}) without a 5xx, a stack trace or a bare error`, async () => {
    const r = createRandom(SEED);
    const statuses: Record<number, number> = {};
    const findings: Finding[] = [];
    for (let index = 0; index < COUNT; index++) {
      const route = r.pick(routes);
      const req = generateRequest(route, world, r);
      const res = await fetch(s.t.url + req.path, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(15_000) });
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const problem = await check(res.clone());
      if (problem) findings.push({ index, request: describeRequest(req), status: res.status, problem, body: (await res.text()).slice(0, 300) });
      // A fuzzed logout ends one of the sessions the world relies on: start new ones.
      if (route.path.endsWith('/auth/logout') && res.status === 204) await renewSessions();
    }
    const summary = `fuzz seed=${SEED} requests=${COUNT} routes=${routes.length} statuses=${JSON.stringify(statuses)}`;
    console.log(summary);
    expect(findings, summary).toEqual([]);
    // The fuzz reaches past validation: some requests succeed, many are refused.
    expect(Object.keys(statuses).some((code) => Number(code) < 300)).toBe(true);
    expect(statuses[400]).toBeGreaterThan(0);
  }, Math.max(90_000, COUNT * 50));
});
