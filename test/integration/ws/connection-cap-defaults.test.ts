/**
 * The WebSocket connection caps have one default, wherever a gateway is built: a daemon on its
 * default configuration and a gateway given no options both admit 20 connections of one user
 * and 50 anonymous ones of one address (the README's documented defaults), and close the next
 * with 4029.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '../../../daemon/ws/protocol.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { connect, ofType, type TestClient } from './client.js';
import { newUserId, startWsStack, type WsStack } from './harness.js';

/** The documented defaults (README configuration table: STOCKSCREEN_WS_MAX_CONNECTIONS_PER_ADDRESS, …_PER_USER). */
const PER_ADDRESS = 50;
const PER_USER = 20;

/** Open `n` connections to `url` and wait until each is greeted. */
async function openMany(url: string, n: number): Promise<TestClient[]> {
  const clients: TestClient[] = [];
  for (let i = 0; i < n; i++) {
    const c = await connect(url);
    clients.push(c);
    await c.next(ofType('connected'));
  }
  return clients;
}

/** The caps one WebSocket endpoint enforces: the next connection after PER_USER (PER_ADDRESS) is closed with 4029. */
async function expectDefaultCaps(wsBase: string, token: string): Promise<void> {
  const mine = await openMany(`${wsBase}?token=${token}`, PER_USER);
  const overUser = await connect(`${wsBase}?token=${token}`);
  expect(await overUser.closed).toEqual({ code: CLOSE_CODES.TOO_MANY_CONNECTIONS, reason: 'too many connections for this user' });
  const anonymous = await openMany(wsBase, PER_ADDRESS);
  const overAddress = await connect(wsBase);
  expect(await overAddress.closed).toEqual({ code: CLOSE_CODES.TOO_MANY_CONNECTIONS, reason: 'too many connections from this address' });
  await Promise.all([...mine, ...anonymous].map((c) => c.close()));
}

describe('WebSocket connection caps by default', () => {
  let t: TestDaemon;
  let stack: WsStack;
  beforeAll(async () => {
    t = await startTestDaemon('ws-cap-defaults');
    stack = await startWsStack('cap-defaults');
  });
  afterAll(async () => {
    await stack?.close();
    await t?.close();
  });

  it('are enforced by a daemon on its default configuration', async () => {
    const { access_token } = await t.login();
    await expectDefaultCaps(`${t.url.replace('http', 'ws')}/v1/ws`, access_token);
  });

  it('are the same for a gateway built without options', async () => {
    await expectDefaultCaps(`${stack.wsUrl}/v1/ws`, await stack.token(newUserId()));
  });
});
