import { describe, expect, it } from 'vitest';
import { createSubscriptionLedger, describeAnomaly, describeServerError, describeStatus, subscriptionRequests } from '../../../../../cli/services/realtime/watch.js';

describe('subscriptionRequests', () => {
  it('makes one request per kind, without duplicates, markets upper-cased', () => {
    expect(subscriptionRequests({ codes: ['005930', '005930', '000660'], markets: ['kospi'], sectors: [] })).toEqual([
      { subscription_type: 'stock', targets: ['005930', '000660'] },
      { subscription_type: 'market', targets: ['KOSPI'] },
    ]);
  });
});

describe('subscription ledger', () => {
  const requests = subscriptionRequests({ codes: ['005930', '999999'], markets: [], sectors: ['Nowhere'] });
  const failed = (details: Record<string, unknown>) => ({ type: 'error', code: 'SUBSCRIPTION_FAILED', message: 'm', details });

  it('reports refused targets once and notices when nothing is left', () => {
    const ledger = createSubscriptionLedger(requests);
    expect(ledger.observe({ type: 'subscribed', subscription_type: 'stock', targets: ['005930'] })).toEqual([]);
    expect(ledger.observe(failed({ reason: 'unknown_targets', subscription_type: 'stock', targets: ['999999'] }))).toEqual(['999999']);
    expect(ledger.observe(failed({ reason: 'unknown_targets', subscription_type: 'stock', targets: ['999999'] }))).toEqual([]);
    expect(ledger.allRejected()).toBe(false);
  });

  it('treats a failure without targets as the whole request of that kind', () => {
    const ledger = createSubscriptionLedger(requests);
    expect(ledger.observe(failed({ reason: 'too_many_targets', subscription_type: 'stock' }))).toEqual(['005930', '999999']);
    expect(ledger.allRejected()).toBe(false);
    ledger.observe(failed({ reason: 'unknown_targets', subscription_type: 'sector', targets: ['Nowhere'] }));
    expect(ledger.allRejected()).toBe(true);
  });
});

describe('stderr lines', () => {
  it('says what happened to the connection', () => {
    expect(describeStatus({ state: 'connecting', attempt: 1 }, true)).toBeUndefined();
    expect(describeStatus({ state: 'connected', sessionId: 'S1' }, true)).toBe('connected (session S1); Ctrl-C to stop');
    expect(describeStatus({ state: 'restored', sessionId: 'S1', missed: 3, estimated: false, historyTruncated: false }, false)).toBe('reconnected: session S1 restored, 3 missed message(s) replayed');
    expect(describeStatus({ state: 'restored', sessionId: 'S1', missed: 9000, estimated: true, historyTruncated: true }, false)).toBe(
      'reconnected: session S1 restored, about 9000 missed message(s) (more than the server keeps: a fresh snapshot was sent instead)',
    );
    expect(describeStatus({ state: 'reconnecting', attempt: 2, delayMs: 1500, reason: 'connection closed (1006)' }, false)).toBe('connection lost (connection closed (1006)); reconnecting in 1.5s (attempt 2)');
    expect(describeAnomaly({ kind: 'gap', expected: 10, got: 13 })).toBe('warning: sequence gap: expected 10, got 13 (3 message(s) lost)');
    expect(describeServerError({ type: 'error', sequence: 1, timestamp: '2026-01-01T00:00:00.000Z', code: 'INVALID_TOKEN', message: 'JWT validation failed; continuing as anonymous', details: {} })).toBe(
      'warning: INVALID_TOKEN: JWT validation failed; continuing as anonymous (continuing without login: no alerts; run `stockscreen login`)',
    );
  });
});
