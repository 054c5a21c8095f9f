import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../daemon/infra/clock.js';
import { createMarketClock, sessionAt, statusAt } from '../../../../daemon/market/market-clock.js';

const kst = (local: string): number => Date.parse(`${local}+09:00`);

describe('sessionAt: KRX regular session and Nextrade pre/after-market (Monday 2026-03-09)', () => {
  it.each([
    ['07:59:59', null],
    ['08:00:00', 'pre_market'],
    ['08:49:59', 'pre_market'],
    // KRX's opening auction book (pre_open) is not a trading session of either venue.
    ['08:50:00', null],
    ['08:59:59', null],
    ['09:00:00', 'regular'],
    ['15:25:00', 'regular'],
    ['15:29:59', 'regular'],
    ['15:30:00', 'after_market'],
    ['19:59:59', 'after_market'],
    ['20:00:00', null],
  ])('%s KST → %s', (time, session) => {
    expect(sessionAt(kst(`2026-03-09T${time}`))).toBe(session);
  });

  it('nothing trades on a weekend or a KRX holiday', () => {
    expect(sessionAt(kst('2026-03-07T10:00:00'))).toBeNull();
    expect(sessionAt(kst('2026-03-07T16:00:00'))).toBeNull();
    expect(sessionAt(kst('2026-01-01T08:10:00'))).toBeNull();
  });

  it('leaves the KRX status (and so the simulator) as it was: after-market hours are closed', () => {
    expect(statusAt(kst('2026-03-09T16:00:00'))).toBe('closed');
    expect(statusAt(kst('2026-03-09T08:10:00'))).toBe('closed');
  });

  it('the clock reports the session; the fixed modes say regular or none', () => {
    const clock = createManualClock(kst('2026-03-09T17:00:00'));
    expect(createMarketClock({ mode: 'krx', clock }).session()).toBe('after_market');
    expect(createMarketClock({ mode: 'krx', clock }).isTrading()).toBe(false);
    expect(createMarketClock({ mode: 'always-open', clock }).session()).toBe('regular');
    expect(createMarketClock({ mode: 'always-closed', clock }).session()).toBeNull();
  });
});
