/**
 * Notification channels as an attack surface: a URL that points inside (loopback, private,
 * link-local, the cloud metadata address, IPv4 in IPv6 clothing, a host that resolves to
 * loopback) or plain HTTP to a public address is refused at creation with a 400 naming the url —
 * unless the operator allows private addresses, and even then never the metadata address;
 * nothing is created. Secrets (a webhook's whsec_, a Telegram bot token) never reach the logs.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/infra/logger.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { expectError, startSecurityDaemon, type SecurityDaemon } from './harness.js';

const INSIDE = [
  'https://127.0.0.1/hook', 'https://localhost:8443/hook', 'https://[::1]/hook', 'https://10.0.0.5/hook', 'https://192.168.1.20/hook', 'https://172.16.0.1/',
  'https://169.254.169.254/latest/meta-data/', 'https://[::ffff:127.0.0.1]/', 'https://0.0.0.0/', 'https://[fd00:ec2::254]/', 'http://127.0.0.1:6379/',
];

describe('outbound URLs of channels', () => {
  let s: SecurityDaemon;
  let token: string;
  beforeAll(async () => {
    s = await startSecurityDaemon('sec-outbound');
    token = (await s.t.login()).access_token;
  });
  afterAll(() => s?.t.close());

  it('refuses webhook, Slack and Discord URLs that point inside, with details.url, and creates nothing', async () => {
    for (const type of ['webhook', 'slack', 'discord']) {
      for (const url of INSIDE) {
        const res = await s.t.request('/api/v1/channels', { method: 'POST', token, json: { type, name: 'x', url } });
        const body = await expectError(res, 400, 'INVALID_REQUEST');
        expect(body.error.details.url, `${type} ${url}`).toMatch(/refused|resolve/);
      }
    }
    const plain = await s.t.request('/api/v1/channels', { method: 'POST', token, json: { type: 'webhook', name: 'x', url: 'http://93.184.216.34/hook' } });
    expect((await expectError(plain, 400)).error.details.url).toMatch(/https/);
    expect(((await (await s.t.request('/api/v1/channels', { token })).json()) as any).data).toEqual([]);
  });
});

describe('with STOCKSCREEN_WEBHOOK_ALLOW_PRIVATE', () => {
  let t: TestDaemon;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    t = await startTestDaemon('sec-outbound-private', { webhook_allow_private: true, telegram_api_url: 'http://127.0.0.1:1', log_level: 'debug' }, { logger: createLogger('debug', sink) });
  });
  afterAll(() => t?.close());

  it('allows loopback and private addresses but still refuses the metadata address', async () => {
    const token = (await t.login()).access_token;
    const ok = await t.request('/api/v1/channels', { method: 'POST', token, json: { type: 'webhook', name: 'local', url: 'http://127.0.0.1:1/hook' } });
    expect(ok.status).toBe(201);
    const meta = await t.request('/api/v1/channels', { method: 'POST', token, json: { type: 'webhook', name: 'meta', url: 'http://169.254.169.254/' } });
    expect((await expectError(meta, 400)).error.details.url).toMatch(/metadata/);
  });

  it('never writes a signing secret or a bot token to the log, whatever is sent', async () => {
    const token = (await t.login()).access_token;
    const hook = ((await (await t.request('/api/v1/channels', { method: 'POST', token, json: { type: 'webhook', name: 'h', url: 'http://127.0.0.1:1/x' } })).json()) as any).data;
    const bot = '987654:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
    const tg = ((await (await t.request('/api/v1/channels', { method: 'POST', token, json: { type: 'telegram', name: 't', bot_token: bot, chat_id: '42' } })).json()) as any).data;
    // Both tests fail (nothing listens): errors are logged and recorded.
    for (const id of [hook.id, tg.id]) expect(((await (await t.request(`/api/v1/channels/${id}/test`, { method: 'POST', token })).json()) as any).data.status).toBe('dead');
    const log = lines.join('');
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(hook.secret.slice(6));
    expect(log).not.toContain(bot.split(':')[1]);
    const deliveries = JSON.stringify(((await (await t.request('/api/v1/deliveries', { token })).json()) as any).data);
    expect(deliveries).not.toContain(bot.split(':')[1]);
  });
});
