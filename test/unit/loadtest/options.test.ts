import { describe, expect, it } from 'vitest';
import { LIMITS, parseDuration, resolveOptions, SCENARIO_NAMES } from '../../../loadtest/options.js';

describe('load-test options', () => {
  it('parses durations like the CLI flags', () => {
    expect(parseDuration('30s')).toBe(30);
    expect(parseDuration('2m')).toBe(120);
    expect(parseDuration('500ms')).toBe(0.5);
    expect(parseDuration('1h')).toBe(3600);
    expect(parseDuration('45')).toBe(45);
    expect(parseDuration(12)).toBe(12);
    expect(() => parseDuration('soon')).toThrow(/not a duration/);
  });

  it('fills defaults: all scenarios, 30 s, warm-up a fifth of it capped at 5 s, closed loop', () => {
    const o = resolveOptions({});
    expect(o.scenarios).toEqual([...SCENARIO_NAMES]);
    expect(o.duration).toBe(30);
    expect(o.warmup).toBe(5);
    expect(resolveOptions({ duration: '10s' }).warmup).toBe(2); // 10 / 5
    expect(o.rate).toBeUndefined();
    expect(o.httpConnections).toBe(10);
    expect(o.wsConnections).toBe(1000);
    expect(o.url).toBe('http://127.0.0.1:8000');
  });

  it('uses --connections for WebSocket clients too, capping REST connections', () => {
    const o = resolveOptions({ scenarios: ['ws-fanout', 'screen-simple'], connections: 20_000 });
    expect(o.wsConnections).toBe(20_000);
    expect(o.httpConnections).toBe(LIMITS.maxHttpConnections);
    expect(resolveOptions({ connections: 5, ws: { connections: 300 } }).wsConnections).toBe(300);
  });

  it('refuses unbounded or unknown settings, naming each', () => {
    expect(() => resolveOptions({ duration: '2h' })).toThrow(/duration: must be between 0.1 and 3600 seconds/);
    expect(() => resolveOptions({ connections: 1_000_000 })).toThrow(/connections/);
    expect(() => resolveOptions({ rate: 0 })).toThrow(/rate/);
    expect(() => resolveOptions({ scenarios: ['screen-everything' as never] })).toThrow(/scenarios/);
    expect(() => resolveOptions({ bogus: 1 } as never)).toThrow(/bogus|Unrecognized/i);
  });
});
