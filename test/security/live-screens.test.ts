/**
 * Hostile live-screen subscriptions: every one is answered with an error message
 * (SUBSCRIPTION_FAILED or INVALID_MESSAGE) carrying no stack trace, nothing is registered,
 * and the connection keeps serving. GET /screen/live never shows another user's screens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Msg, type TestClient } from '../integration/ws/client.js';
import { leaksStack, startSecurityDaemon, type SecurityDaemon } from './harness.js';

const screenSub = (extra: Record<string, unknown>) => ({ type: 'subscribe', subscription_type: 'screen', ...extra });

describe('hostile live-screen subscriptions', () => {
  let s: SecurityDaemon;
  let user: { access_token: string };
  let c: TestClient;
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-live', { live_screen_limits: { free: { per_connection: 2, per_user: 2 } } } as never);
    user = await s.t.login();
    c = await connect(`${s.t.url.replace('http', 'ws')}/v1/ws?token=${user.access_token}`);
    await c.next((m) => m.type === 'connected');
  });
  afterAll(async () => {
    await c?.close();
    await s.t.close();
  });

  const HOSTILE: [string, unknown][] = [
    ['targets and query at once', screenSub({ targets: ['template:value'], query: {} })],
    ['neither targets nor query', screenSub({})],
    ['too many targets', screenSub({ targets: Array.from({ length: 11 }, (_, i) => `template:t${i}`) })],
    ['a target that is not a string', screenSub({ targets: [{ $ne: 1 }] })],
    ['an overlong target', screenSub({ targets: ['preset:' + 'a'.repeat(200)] })],
    ['path traversal in a preset id', screenSub({ targets: ['preset:../../etc/passwd'] })],
    ['SQL in a preset id', screenSub({ targets: ["preset:1' OR '1'='1"] })],
    ['a query that is an array', screenSub({ query: [1, 2] })],
    ['a prototype key in the query', JSON.parse('{"type":"subscribe","subscription_type":"screen","query":{"__proto__":{"polluted":1},"per_page":1}}')],
    ['an expression too deep', screenSub({ query: { expression: '('.repeat(500) + 'per < 1' + ')'.repeat(500) } })],
    ['an unknown field', screenSub({ query: { filters: { constructor: { min: 1 } } } })],
    ['per_page over the maximum', screenSub({ query: { per_page: 1e9 } })],
    ['template overrides of the wrong type', screenSub({ targets: ['template:value'], overrides: { per_page: 'all' } })],
    ['template overrides that are an array', screenSub({ targets: ['template:value'], overrides: [{ market: 'KOSDAQ' }] })],
    ['a prototype key in template overrides', JSON.parse('{"type":"subscribe","subscription_type":"screen","targets":["template:value"],"overrides":{"__proto__":{"polluted":1},"bogus":1}}')],
    ['template overrides over the maximum page', screenSub({ targets: ['template:value'], overrides: { per_page: 1e9 } })],
    ['template overrides asking for history', screenSub({ targets: ['template:value'], overrides: { as_of: '2020-01-02' } })],
  ];

  it.each(HOSTILE)('refuses %s with an error and keeps the connection usable', async (_label, message) => {
    const from = c.messages.length;
    c.send(message);
    const answer = await c.next((m: Msg) => (m.type === 'error' || m.type === 'subscribed') && c.messages.indexOf(m) >= from);
    // A harmless query (the prototype key is dropped) may be accepted; everything else is refused.
    if (answer.type === 'subscribed') {
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      c.send({ type: 'unsubscribe', subscription_type: 'screen', targets: [answer.screen_id] });
      await c.next((m: Msg) => m.type === 'unsubscribed');
    } else {
      expect(['SUBSCRIPTION_FAILED', 'INVALID_MESSAGE']).toContain(answer.code);
      expect(leaksStack(JSON.stringify(answer))).toBe(false);
    }
    c.send({ type: 'ping' });
    await c.next((m: Msg) => m.type === 'pong');
    expect(s.t.daemon.context().realtime.liveScreens.engine.stats().subscriptions).toBe(0);
  });

  it("never lists another user's live screens", async () => {
    c.send(screenSub({ targets: ['template:value'] }));
    await c.next((m: Msg) => m.type === 'subscribed' && m.subscription_type === 'screen');
    const other = await s.t.login();
    const listed = (await (await s.t.request('/api/v1/screen/live', { token: other.access_token })).json()) as { data: unknown[] };
    expect(listed.data).toEqual([]);
    const mine = (await (await s.t.request('/api/v1/screen/live', { token: user.access_token })).json()) as { data: unknown[] };
    expect(mine.data).toHaveLength(1);
  });
});
