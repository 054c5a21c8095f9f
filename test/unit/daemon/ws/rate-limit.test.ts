import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../daemon/infra/clock.js';
import { createMessageRateLimiter } from '../../../../daemon/ws/rate-limit.js';

describe('per-connection message rate limit', () => {
  it('refuses the (limit+1)th message inside any 1-second window, not per calendar second', () => {
    const clock = createManualClock(0);
    const limiter = createMessageRateLimiter({ limit: 3 }, clock);
    // Messages at 900, 950, 1000 ms: a calendar-second counter would reset at 1000; the window does not.
    for (const t of [900, 950, 1000]) {
      clock.set(t);
      expect(limiter.check().allowed).toBe(true);
    }
    clock.set(1100);
    // 900, 950, 1000 are all within (100, 1100]: refused; room again 1000 ms after 900, at 1900.
    expect(limiter.check()).toEqual({ allowed: false, notify: true, close: false, retryAfterMs: 800 });
    clock.set(1900);
    expect(limiter.check().allowed).toBe(true);
  });

  it('notifies once per episode and counts episodes', () => {
    const clock = createManualClock(0);
    const limiter = createMessageRateLimiter({ limit: 2 }, clock);
    limiter.check();
    limiter.check();
    expect(limiter.check()).toMatchObject({ allowed: false, notify: true });
    expect(limiter.check()).toMatchObject({ allowed: false, notify: false });
    clock.advance(1000);
    expect(limiter.check().allowed).toBe(true); // ends the episode
    limiter.check();
    expect(limiter.check()).toMatchObject({ allowed: false, notify: true });
    expect(limiter.violations()).toBe(2);
  });

  it('asks for a close on the 5th episode within a minute, but not when they are spread out', () => {
    const clock = createManualClock(0);
    const spread = createMessageRateLimiter({ limit: 1 }, clock);
    const burst = createMessageRateLimiter({ limit: 1 }, clock);
    const episode = (l: typeof spread) => {
      l.check();
      return l.check();
    };
    for (let i = 1; i <= 4; i++) {
      expect(episode(burst)).toMatchObject({ close: false });
      clock.advance(1000);
    }
    expect(episode(burst)).toMatchObject({ close: true });

    for (let i = 1; i <= 8; i++) {
      expect(episode(spread)).toMatchObject({ close: false });
      clock.advance(20_000); // at most 3 episodes in any 60 s
    }
  });

  it('asks for a close when one episode passes 10 × limit refused messages', () => {
    const limiter = createMessageRateLimiter({ limit: 2 }, createManualClock(0));
    limiter.check();
    limiter.check();
    const decisions = Array.from({ length: 21 }, () => limiter.check());
    expect(decisions.slice(0, 20).every((d) => !d.allowed && !d.close)).toBe(true);
    expect(decisions[20]).toMatchObject({ allowed: false, close: true });
  });
});
