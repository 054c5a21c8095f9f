/**
 * `stockscreen channels`, `alerts add --notify`, `deliveries` and `schedules` against a real
 * daemon and a real local webhook receiver: the secret printed once, a firing delivered and
 * listed, a failed delivery redelivered, a digest scheduled, a Telegram bot token taken from
 * stdin (never from the command line), and --json printing what the API answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type Receiver, type WebhookReceived } from '../../helpers/notify-receivers.js';
import { fakeIO } from './fake-io.js';
import { priceNear, startMarketHarness, type MarketHarness } from './market-harness.js';

describe('stockscreen channels, deliveries and schedules', () => {
  let h: MarketHarness;
  let receiver: Receiver<WebhookReceived>;
  let secret = '';
  let refuse = true;
  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret: () => secret, script: () => (refuse ? { status: 500 } : { status: 204 }) });
    h = await startMarketHarness('cli-notify', { webhook_allow_private: true, delivery_group_wait_ms: 0, delivery_retry_base_ms: 50, delivery_retry_max_ms: 100, delivery_max_age_s: 1, telegram_api_url: 'http://127.0.0.1:1' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });

  it('adds a webhook channel (secret printed once), delivers a firing of `alerts add --notify`, lists it in `deliveries --failed` and redelivers it', async () => {
    const added = await h.cli(['--json', 'channels', 'add', 'webhook', `${receiver.url}/cli`, '--name', 'ops']);
    expect(added.code, added.io.err()).toBe(0);
    const channel = JSON.parse(added.io.out()).data;
    expect(channel).toMatchObject({ type: 'webhook', name: 'ops', target: `${receiver.url}/cli`, secret: expect.stringMatching(/^whsec_/) });
    secret = channel.secret;
    const listed = await h.cli(['channels', 'list']);
    expect(listed.io.out()).toBe(`ID\tTYPE\tNAME\tTARGET\tENABLED\tDISABLED REASON\tCREATED\n${channel.id}\twebhook\tops\t${receiver.url}/cli\tyes\t\t${channel.created_at}\n`);
    expect(listed.io.out()).not.toContain(secret);

    const a = h.stocks[0]!;
    const alert = await h.cli(['--json', 'alerts', 'add', a.code, 'price_above', String(priceNear(a.close, 5)), '--notify', 'ops']);
    expect(alert.code, alert.io.err()).toBe(0);
    expect(JSON.parse(alert.io.out()).data.channels).toEqual([channel.id]);
    await h.tick(a.code, priceNear(a.close, 6), 5000);
    const [first] = await receiver.waitFor(1);
    expect(first!.verified).toBe(true);

    // The receiver keeps answering 500 and the deadline is a second: the delivery dies.
    const failed = await until(async () => {
      const res = await h.cli(['deliveries', '--failed']);
      const rows = res.io.out().trimEnd().split('\n').slice(1).map((l) => l.split('\t'));
      return rows.find((r) => r[5] === 'dead');
    });
    expect(failed[0]).toBe(first!.headers['webhook-id']);
    expect(failed.slice(2, 5)).toEqual(['alert', channel.id, 'webhook']);
    expect(failed[7]).toBe('500');

    refuse = false;
    const again = await h.cli(['deliveries', 'redeliver', failed[0]!.slice(0, 8)]);
    expect(again.code, again.io.err()).toBe(0);
    const before = receiver.received.length;
    const [, delivered] = (await receiver.waitFor(before + 1)).slice(before - 1);
    expect(delivered!.headers['webhook-id']).toBe(failed[0]);
    const log = await until(async () => {
      const res = await h.cli(['--json', 'deliveries', '--channel', 'ops', '--status', 'delivered']);
      const data = JSON.parse(res.io.out()).data;
      return data.length === 1 ? data : undefined;
    });
    expect(log[0].id).toBe(failed[0]);
  });

  it('takes a Telegram bot token from stdin, never shows it, and tests and removes the channel', async () => {
    const io = fakeIO({ stdin: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n' });
    const added = await h.cli(['channels', 'add', 'telegram', '--chat', '4242', '--name', 'phone', '--bot-token-stdin'], io);
    expect(added.code, io.err()).toBe(0);
    expect(io.out()).not.toContain('AAAAAAAAAA');
    // The daemon's Telegram API is a closed local port here: the test message is dead, exit 1.
    const tested = await h.cli(['channels', 'test', 'phone']);
    expect(tested.code).toBe(1);
    expect(tested.io.err()).toMatch(/test message not delivered/);
    expect(tested.io.out() + tested.io.err()).not.toContain('AAAAAAAAAA');
    expect((await h.cli(['channels', 'rm', 'phone'])).code).toBe(0);
    expect((await h.cli(['channels', 'list'])).io.out()).not.toContain('phone');
    const noToken = await h.cli(['channels', 'add', 'telegram', '--chat', '4242']);
    expect(noToken.code).toBe(2);
    expect(noToken.io.err()).toMatch(/--bot-token-stdin/);
  });

  it('schedules a daily digest of a preset and lists it with its next run', async () => {
    expect((await h.cli(['presets', 'save', 'cheap', '--where', 'per < 10'])).code).toBe(0);
    const added = await h.cli(['--json', 'schedules', 'add', 'cheap', '--at', '15:40', '--notify', 'ops']);
    expect(added.code, added.io.err()).toBe(0);
    const schedule = JSON.parse(added.io.out()).data;
    expect(schedule).toMatchObject({ preset_name: 'cheap', at: '15:40', channels: [expect.any(String)], last_run: null });
    // The next trading day's 15:40 KST (06:40 UTC) to come: a schedule never runs for a day whose time passed before it was made.
    expect(schedule.next_run_at).toMatch(/T06:40:00\.000Z$/);
    expect(Date.parse(schedule.next_run_at)).toBeGreaterThan(Date.now());
    const listed = await h.cli(['schedules', 'list']);
    expect(listed.io.out().split('\n')[1]!.split('\t').slice(0, 3)).toEqual([schedule.id, 'cheap', '15:40']);
    const bad = await h.cli(['schedules', 'add', 'cheap', '--at', '25:00', '--notify', 'ops']);
    expect(bad.code).toBe(2);
    expect((await h.cli(['schedules', 'rm', schedule.id])).code).toBe(0);
  });

  it('ends every new command\'s --help with examples', async () => {
    for (const argv of [['channels', 'add'], ['channels', 'list'], ['channels', 'test'], ['channels', 'rm'], ['deliveries'], ['deliveries', 'redeliver'], ['schedules', 'add'], ['schedules', 'list'], ['schedules', 'rm']]) {
      const res = await h.cli([...argv, '--help']);
      expect(res.io.out(), argv.join(' ')).toMatch(/Examples:\n  \$ stockscreen /);
    }
  });
});

/** Poll a CLI-visible condition (bounded). */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
