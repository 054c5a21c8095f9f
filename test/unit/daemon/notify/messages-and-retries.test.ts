/**
 * Pure parts of delivery: the Standard Webhooks signature (the specification's published test
 * vector, and the reference verifier accepting ours), the retry schedule (exponential with
 * jitter, Retry-After as a floor, dead past the deadline, 4xx dead at once), the reading of
 * receivers' answers, and texts within each service's limit listing every stock that fits.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { alertFiredBody, renderText, TEXT_LIMITS } from '../../../../daemon/notify/messages.js';
import { backoffMs, outcomeOf } from '../../../../daemon/notify/retry-policy.js';
import { byStatus, retryAfter } from '../../../../daemon/notify/senders.js';
import { newWebhookSecret, signWebhook } from '../../../../daemon/notify/signing.js';

describe('Standard Webhooks signing', () => {
  it('matches the published test vector and verifies with the reference verifier', () => {
    // standard-webhooks/standard-webhooks libraries/javascript/src/webhook.test.ts "sign function works".
    const signed = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330_000, '{"test": 2432232314}');
    expect(signed['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(signed['webhook-timestamp']).toBe('1614265330');
    const secret = newWebhookSecret();
    const body = '{"type":"channel.test"}';
    const headers = signWebhook(secret, 'a1b2', Date.now(), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ type: 'channel.test' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
  });
});

describe('retry schedule', () => {
  const settings = { baseMs: 1000, maxMs: 60_000 };
  it('doubles from the base, capped, jittered within the upper half', () => {
    expect([1, 2, 3, 10].map((n) => backoffMs(n, settings, () => 1))).toEqual([1000, 2000, 4000, 60_000]);
    expect([1, 2, 3].map((n) => backoffMs(n, settings, () => 0))).toEqual([500, 1000, 2000]);
  });
  it('waits at least the Retry-After, and is dead when the next attempt would pass the deadline', () => {
    const failed = { ok: false, statusCode: 503, error: 'HTTP 503', permanent: false };
    expect(outcomeOf({ ...failed, retryAfterMs: 30_000 }, 1, 0, 86_400_000, settings, { random: () => 0 })).toEqual({ status: 'retrying', next_attempt_at: 30_000, error: 'HTTP 503' });
    expect(outcomeOf(failed, 1, 0, 86_400_000, settings, { random: () => 0 })).toEqual({ status: 'retrying', next_attempt_at: 500, error: 'HTTP 503' });
    expect(outcomeOf(failed, 1, 1000, 1200, settings, { random: () => 0 }).status).toBe('dead');
    expect(outcomeOf({ ...failed, permanent: true }, 1, 0, 86_400_000, settings).status).toBe('dead');
    expect(outcomeOf({ ok: true, statusCode: 200, error: null, permanent: false }, 1, 0, 0, settings)).toEqual({ status: 'delivered' });
  });
  it('reads answers: 2xx success; 408, 429, 5xx retried; 3xx and other 4xx permanent; 410 switches the channel off', () => {
    const res = (status: number, headers: Record<string, string> = {}) => byStatus({ status, headers, body: '', durationMs: 1 }, undefined);
    expect(res(204).ok).toBe(true);
    for (const s of [408, 429, 500, 502, 503, 504]) expect(res(s).permanent, String(s)).toBe(false);
    for (const s of [301, 302, 400, 401, 403, 404, 422]) expect(res(s).permanent, String(s)).toBe(true);
    expect(res(410)).toMatchObject({ permanent: true, disable: expect.stringContaining('410') });
    expect(res(503, { 'retry-after': '7' }).retryAfterMs).toBe(7000);
    expect(retryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
  });
});

describe('message text', () => {
  const event = (i: number) => ({
    event_id: `e${i}`, alert_id: `a${i}`, alert_type: 'price_above', code: String(100000 + i), name: `Stock ${i}`, preset_id: null, threshold: 1, price: 2,
    change_percent: 1, volume: 3, message: `Stock ${i} (${100000 + i}) price 2 reached 1 or above`, fired_at: 1_700_000_000_000 + i,
  });
  it('lists every stock of a grouped burst and stays within Telegram and Discord limits, saying how many were left out', () => {
    const few = JSON.parse(alertFiredBody('d', [event(1), event(2), event(3)]));
    expect(renderText(few, TEXT_LIMITS.telegram).split('\n')).toEqual(['🔔 3 alerts', ...[1, 2, 3].map((i) => `• ${event(i).message}`)]);
    const many = JSON.parse(alertFiredBody('d', Array.from({ length: 500 }, (_, i) => event(i))));
    for (const limit of [TEXT_LIMITS.telegram, TEXT_LIMITS.discord]) {
      const text = renderText(many, limit);
      expect(text.length).toBeLessThanOrEqual(limit);
      expect(text).toMatch(/… and \d+ more$/);
    }
  });
});
