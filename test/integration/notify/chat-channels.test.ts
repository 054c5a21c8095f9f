/**
 * Telegram, Slack, Discord and e-mail channels end to end, against local fakes that follow each
 * service's documented protocol (test/helpers/notify-receivers.ts) and a real SMTP server:
 * Telegram's 429 with `retry_after` honoured and one message per second per chat; the bot token
 * never answered nor logged; Slack's and Discord's text and 429; SMTP's temporary refusal
 * retried with a stable Message-ID, a permanent one dead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  discordRateLimited, startFakeDiscord, startFakeSlack, startFakeTelegram, startSmtpReceiver, telegramFlood,
  type Receiver, type SmtpReceiver,
} from '../../helpers/notify-receivers.js';
import { CODES, QUICK_RETRIES, startNotifyDaemon, until, type NotifyDaemon } from './harness.js';

const TOKEN = '123456789:AAExampleExampleExampleExample_-12';
const CHAT = '987654321';
let d: NotifyDaemon;
let user: { access_token: string; id: string };
let telegram: Receiver;
let slack: Receiver;
let discord: Receiver;
let smtp: SmtpReceiver;
let floodOnce = false;
let price = 10_000;

const settled = (id: string, status: string) => until(`delivery ${id} ${status}`, async () => {
  const x = await d.call('GET', `/deliveries/${id}`, user.access_token, undefined, 200);
  return x.status === status ? x : undefined;
});
const onlyDelivery = async (channelId: string) => until('a delivery', async () => (await d.call('GET', `/deliveries?channel_id=${channelId}`, user.access_token, undefined, 200))[0]);

async function fire(code: string, channels: string[]): Promise<void> {
  await d.call('POST', '/alerts', user.access_token, { code, alert_type: 'price_above', threshold: price + 10, channels }, 201);
  price += 100;
  await d.tick([{ code, price }]);
}

beforeAll(async () => {
  telegram = await startFakeTelegram({
    tokens: [TOKEN], chats: [CHAT],
    script: () => {
      if (!floodOnce) return undefined;
      floodOnce = false;
      return telegramFlood(1);
    },
  });
  slack = await startFakeSlack();
  let discordCalls = 0;
  discord = await startFakeDiscord({ script: () => (++discordCalls === 1 ? discordRateLimited(0.5) : undefined) });
  let rcpt = 0;
  smtp = await startSmtpReceiver({ refuse: () => (++rcpt === 1 ? 451 : undefined) });
  d = await startNotifyDaemon('notify-chat', {
    ...QUICK_RETRIES, delivery_group_wait_ms: 0, telegram_api_url: telegram.url, smtp_url: smtp.url, smtp_from: 'alerts@example.com', log_level: 'silent',
    channel_caps: { free: 20 },
  });
  user = await d.t.login();
}, 60_000);
afterAll(async () => {
  await d?.close();
  for (const r of [telegram, slack, discord]) await r?.close();
  await smtp?.close();
});

describe('Telegram', () => {
  it('Given a bot token, then it is never shown again, and a firing reaches the chat after a 429 retry_after', async () => {
    const channel = await d.call('POST', '/channels', user.access_token, { type: 'telegram', name: 'phone', bot_token: TOKEN, chat_id: CHAT }, 201);
    expect(channel).toMatchObject({ type: 'telegram', target: CHAT });
    expect(JSON.stringify(channel)).not.toContain(TOKEN.split(':')[1]);
    expect(JSON.stringify(await d.call('GET', '/channels', user.access_token, undefined, 200))).not.toContain(TOKEN.split(':')[1]);
    floodOnce = true;
    await fire(CODES[0], [channel.id]);
    const [first, second] = await telegram.waitFor(2);
    expect(first!.path).toBe(`/bot${TOKEN}/sendMessage`);
    expect(second!.json).toMatchObject({ chat_id: CHAT, text: expect.stringContaining(`(${CODES[0]})`) });
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    const done = await settled((await onlyDelivery(channel.id)).id, 'delivered');
    expect(done.attempts.map((a: any) => a.status_code)).toEqual([429, 200]);
    expect(done.attempts[0].error).toBe('Telegram 429: Too Many Requests: retry after 1');
    expect(JSON.stringify(done)).not.toContain(TOKEN.split(':')[1]);
  });

  it('Given two channels to one chat of one bot, then their messages are at least a second apart', async () => {
    const a = await d.call('POST', '/channels', user.access_token, { type: 'telegram', name: 'chat-a', bot_token: TOKEN, chat_id: CHAT }, 201);
    const b = await d.call('POST', '/channels', user.access_token, { type: 'telegram', name: 'chat-b', bot_token: TOKEN, chat_id: CHAT }, 201);
    const before = telegram.received.length;
    for (const [code, ch] of [[CODES[1], a.id], [CODES[2], b.id]] as const) await d.call('POST', '/alerts', user.access_token, { code, alert_type: 'price_above', threshold: price + 10, channels: [ch] }, 201);
    price += 100;
    await d.tick([{ code: CODES[1], price }, { code: CODES[2], price }]);
    const got = (await telegram.waitFor(before + 2)).slice(before);
    const texts = got.map((r) => r.json.text).join('\n');
    for (const code of [CODES[1], CODES[2]]) expect(texts).toContain(`(${code})`);
    // Pacing is a lower bound on the spacing: a slow machine only spaces them more.
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('Given a chat the bot cannot reach, then the delivery is dead and the channel switched off', async () => {
    const channel = await d.call('POST', '/channels', user.access_token, { type: 'telegram', name: 'lost', bot_token: TOKEN, chat_id: '111' }, 201);
    await fire(CODES[3], [channel.id]);
    const dead = await settled((await onlyDelivery(channel.id)).id, 'dead');
    expect(dead.attempts).toEqual([expect.objectContaining({ status_code: 400, error: 'Telegram 400: Bad Request: chat not found' })]);
    expect(await d.call('GET', `/channels/${channel.id}`, user.access_token, undefined, 200)).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('chat not found') });
  });
});

describe('Slack and Discord', () => {
  it('Given a Slack incoming webhook, then the firing is posted as text and the URL secret is not shown', async () => {
    const url = `${slack.url}/services/T000/B000/XXXXsecretXXXX`;
    const channel = await d.call('POST', '/channels', user.access_token, { type: 'slack', name: 'team', url }, 201);
    expect(channel.target).not.toContain('XXXXsecretXXXX');
    await fire(CODES[4], [channel.id]);
    const [got] = await slack.waitFor(1);
    expect(got!.path).toBe('/services/T000/B000/XXXXsecretXXXX');
    expect(got!.json.text).toContain(`(${CODES[4]})`);
    expect((await settled((await onlyDelivery(channel.id)).id, 'delivered')).attempts.map((a: any) => a.status_code)).toEqual([200]);
  });

  it("Given a Discord webhook answering 429, then the firing is posted after its retry_after, without @-mentions", async () => {
    const channel = await d.call('POST', '/channels', user.access_token, { type: 'discord', name: 'server', url: `${discord.url}/api/webhooks/1/tokentoken` }, 201);
    await fire(CODES[5], [channel.id]);
    const [first, second] = await discord.waitFor(2);
    expect(second!.json).toMatchObject({ content: expect.stringContaining(`(${CODES[5]})`), allowed_mentions: { parse: [] } });
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(450);
    expect((await settled((await onlyDelivery(channel.id)).id, 'delivered')).attempts.map((a: any) => a.status_code)).toEqual([429, 204]);
  });
});

describe('e-mail', () => {
  it('Given an SMTP server refusing once with 451, then the mail is retried and accepted with one Message-ID', async () => {
    const channel = await d.call('POST', '/channels', user.access_token, { type: 'email', name: 'inbox', address: 'me@example.com' }, 201);
    await fire(CODES[0], [channel.id]);
    const [mail] = await smtp.waitFor(1);
    expect(mail).toMatchObject({ from: 'alerts@example.com', to: ['me@example.com'] });
    expect(mail!.raw).toContain(CODES[0]);
    const done = await settled((await onlyDelivery(channel.id)).id, 'delivered');
    expect(mail!.messageId).toBe(`<${done.id}@stockscreen>`);
    expect(done.attempts.map((a: any) => a.status_code)).toEqual([451, 250]);
  });

  it('Given a test message, then it is sent at once and logged as a test delivery', async () => {
    const channel = await d.call('POST', '/channels', user.access_token, { type: 'email', name: 'inbox-2', address: 'you@example.com' }, 201);
    const result = await d.call('POST', `/channels/${channel.id}/test`, user.access_token, undefined, 200);
    expect(result).toMatchObject({ kind: 'test', status: 'delivered', channel_id: channel.id, attempts: [{ n: 1, status_code: 250 }] });
    expect(smtp.mails.at(-1)).toMatchObject({ to: ['you@example.com'], subject: 'stockscreen test message' });
  });
});
