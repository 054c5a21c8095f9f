import { describe, it, expect } from 'vitest';
import { createManualClock } from '../../../../daemon/infra/clock.js';
import type { MarketStatusEvent } from '../../../../daemon/kernel/events.js';
import { createMarketClock, kstDate, nextTransition, statusAt, type TimerApi } from '../../../../daemon/market/market-clock.js';

/** An instant written in Korea time (the +09:00 offset is parsed by Date, not by the code under test). */
const kst = (local: string): number => Date.parse(`${local}+09:00`);

/** Timers that only record what was asked; the test fires them. */
function fakeTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let nextId = 1;
  const api: TimerApi = {
    setTimeout(fn, ms) {
      pending.set(nextId, { fn, ms });
      return nextId++;
    },
    clearTimeout: (id) => void pending.delete(id as number),
  };
  /** The only pending timer (the clock never keeps more than one). */
  const only = () => {
    expect(pending.size).toBe(1);
    const [id, t] = [...pending.entries()][0]!;
    return { ms: t.ms, fire: () => (pending.delete(id), t.fn()) };
  };
  return { api, pending, only };
}

describe('statusAt on a regular trading day (Monday 2026-03-09)', () => {
  it.each([
    ['2026-03-09T08:29:59.999', 'closed'],
    ['2026-03-09T08:30:00', 'pre_open'],
    ['2026-03-09T08:59:59', 'pre_open'],
    ['2026-03-09T09:00:00', 'open'],
    ['2026-03-09T12:00:00', 'open'],
    ['2026-03-09T15:19:59.999', 'open'],
    ['2026-03-09T15:20:00', 'closing_auction'],
    ['2026-03-09T15:29:59', 'closing_auction'],
    ['2026-03-09T15:30:00', 'closed'],
    ['2026-03-09T23:59:59', 'closed'],
  ] as const)('%s KST → %s', (local, expected) => {
    expect(statusAt(kst(local))).toBe(expected);
  });

  it('reads Korea time, not UTC: 00:00 UTC is 09:00 KST (open)', () => {
    expect(statusAt(Date.parse('2026-03-09T00:00:00Z'))).toBe('open');
    // 2026-03-08T23:59:59Z is 08:59:59 KST on Monday the 9th (the UTC date is still Sunday).
    expect(statusAt(Date.parse('2026-03-08T23:59:59Z'))).toBe('pre_open');
    expect(kstDate(Date.parse('2026-03-08T23:59:59Z'))).toBe('2026-03-09');
  });
});

describe('statusAt on non-trading days and the first day of the year', () => {
  it('is closed all day on a Saturday and a Sunday', () => {
    expect(statusAt(kst('2026-03-14T10:00:00'))).toBe('closed');
    expect(statusAt(kst('2026-03-15T10:00:00'))).toBe('closed');
  });

  it('is closed on a weekday KRX holiday (2026-03-02, 삼일절 substitute; 2026-12-31 year-end)', () => {
    expect(statusAt(kst('2026-03-02T10:00:00'))).toBe('closed');
    expect(statusAt(kst('2026-12-31T10:00:00'))).toBe('closed');
  });

  it('opens at 10:00 on the first trading day of 2026 (Friday 2026-01-02), pre-open from 09:30', () => {
    expect(statusAt(kst('2026-01-02T09:00:00'))).toBe('closed');
    expect(statusAt(kst('2026-01-02T09:29:59'))).toBe('closed');
    expect(statusAt(kst('2026-01-02T09:30:00'))).toBe('pre_open');
    expect(statusAt(kst('2026-01-02T09:59:59'))).toBe('pre_open');
    expect(statusAt(kst('2026-01-02T10:00:00'))).toBe('open');
    expect(statusAt(kst('2026-01-02T15:20:00'))).toBe('closing_auction');
    expect(statusAt(kst('2026-01-02T15:30:00'))).toBe('closed');
  });
});

describe('nextTransition', () => {
  it('returns the next boundary strictly after the instant', () => {
    expect(nextTransition(kst('2026-03-09T09:00:00'))).toEqual({ at: kst('2026-03-09T15:20:00'), status: 'closing_auction' });
    expect(nextTransition(kst('2026-03-09T08:59:59'))).toEqual({ at: kst('2026-03-09T09:00:00'), status: 'open' });
    expect(nextTransition(kst('2026-03-09T15:25:00'))).toEqual({ at: kst('2026-03-09T15:30:00'), status: 'closed' });
  });

  it('skips the weekend: Friday after the close → Monday 08:30 pre-open', () => {
    expect(nextTransition(kst('2026-03-13T15:30:00'))).toEqual({ at: kst('2026-03-16T08:30:00'), status: 'pre_open' });
  });

  it('skips holidays: before Seollal (Feb 16–18, 2026) → Thursday Feb 19', () => {
    expect(nextTransition(kst('2026-02-13T16:00:00'))).toEqual({ at: kst('2026-02-19T08:30:00'), status: 'pre_open' });
  });

  it('lands on the late pre-open of the first trading day (2025-12-31 and 2026-01-01 closed)', () => {
    expect(nextTransition(kst('2025-12-30T16:00:00'))).toEqual({ at: kst('2026-01-02T09:30:00'), status: 'pre_open' });
  });
});

describe('createMarketClock', () => {
  it('sleeps until the next transition and announces it for KOSPI and KOSDAQ', () => {
    // Given the clock at 08:00 KST on a trading day
    const clock = createManualClock(kst('2026-03-09T08:00:00'));
    const timers = fakeTimers();
    const seen: MarketStatusEvent[][] = [];
    const mc = createMarketClock({ mode: 'krx', clock, timers: timers.api, onTransition: (e) => seen.push(e) });
    mc.start();
    // Then one timer is set for 30 minutes (not a polling loop)
    const first = timers.only();
    expect(first.ms).toBe(30 * 60_000);
    // When it fires at 08:30
    clock.set(kst('2026-03-09T08:30:00'));
    first.fire();
    // Then both markets go to pre_open, and the next wait is 30 minutes to 09:00
    expect(seen).toEqual([[
      { type: 'market_status', market: 'KOSPI', status: 'pre_open', ts: kst('2026-03-09T08:30:00') },
      { type: 'market_status', market: 'KOSDAQ', status: 'pre_open', ts: kst('2026-03-09T08:30:00') },
    ]]);
    expect(timers.only().ms).toBe(30 * 60_000);
    expect(mc.status()).toBe('pre_open');
    expect(mc.isTrading()).toBe(false);
  });

  it('walks a whole day through every status in order', () => {
    const clock = createManualClock(kst('2026-03-09T08:00:00'));
    const timers = fakeTimers();
    const statuses: string[] = [];
    const mc = createMarketClock({ mode: 'krx', clock, timers: timers.api, maxDelayMs: 24 * 3_600_000, onTransition: (e) => statuses.push(e[0]!.status) });
    mc.start();
    for (let i = 0; i < 4; i++) {
      const t = timers.only();
      clock.advance(t.ms);
      t.fire();
    }
    expect(statuses).toEqual(['pre_open', 'open', 'closing_auction', 'closed']);
    // 15:30 Monday → 08:30 Tuesday = 17 h
    expect(timers.only().ms).toBe(17 * 3_600_000);
  });

  it('caps a long wait and stays silent when it wakes without a change', () => {
    // Friday 16:00: the next change is Monday 08:30, but the wait is capped at one hour
    const clock = createManualClock(kst('2026-03-13T16:00:00'));
    const timers = fakeTimers();
    const seen: unknown[] = [];
    createMarketClock({ mode: 'krx', clock, timers: timers.api, onTransition: (e) => seen.push(e) }).start();
    const t = timers.only();
    expect(t.ms).toBe(3_600_000);
    clock.advance(t.ms);
    t.fire();
    expect(seen).toEqual([]);
    expect(timers.only().ms).toBe(3_600_000);
  });

  it('stop() cancels the pending timer', () => {
    const timers = fakeTimers();
    const mc = createMarketClock({ mode: 'krx', clock: createManualClock(kst('2026-03-09T08:00:00')), timers: timers.api });
    mc.start();
    mc.stop();
    expect(timers.pending.size).toBe(0);
  });

  it('always-open and always-closed ignore the time and schedule nothing', () => {
    const timers = fakeTimers();
    const saturday = createManualClock(kst('2026-03-14T03:00:00'));
    const open = createMarketClock({ mode: 'always-open', clock: saturday, timers: timers.api });
    const closed = createMarketClock({ mode: 'always-closed', clock: createManualClock(kst('2026-03-09T10:00:00')), timers: timers.api });
    open.start();
    closed.start();
    expect(open.status()).toBe('open');
    expect(open.isTrading()).toBe(true);
    expect(closed.status()).toBe('closed');
    expect(open.next()).toBeNull();
    expect(timers.pending.size).toBe(0);
    expect(open.statusEvents().map((e) => `${e.market}:${e.status}`)).toEqual(['KOSPI:open', 'KOSDAQ:open']);
  });
});
