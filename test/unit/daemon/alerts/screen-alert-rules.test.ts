import { describe, expect, it } from 'vitest';
import { createScreenAlertCauses, screenAlertMessage } from '../../../../daemon/alerts/screen-alert-rules.js';

describe('screen alert causes', () => {
  it('attributes changes during a tick to its bus id, and a snapshot swap outside it to the snapshot', () => {
    let version = 'v1';
    const causes = createScreenAlertCauses(() => version);
    const seen: string[] = [];
    expect(causes.cause()).toBe('snapshot:v1');
    version = 'v2';
    expect(causes.during('1700000000000-0', () => causes.cause())).toBe('tick:1700000000000-0');
    seen.push(causes.cause());
    // An evaluation that throws still ends the tick's cause.
    expect(() => causes.during('1700000000000-1', () => {
      throw new Error('engine failed');
    })).toThrow('engine failed');
    seen.push(causes.cause());
    expect(seen).toEqual(['snapshot:v2', 'snapshot:v2']);
  });
});

describe('screen alert message', () => {
  const quote = { name: 'Samsung Electronics', price: 72000, change_percent: 3.1 };
  it('names the stock, the screen and the live price', () => {
    expect(screenAlertMessage({ alert_type: 'screen_enter' }, 'Momentum', '005930', quote)).toBe('Samsung Electronics (005930) entered the screen "Momentum" at 72,000 (+3.1%)');
    expect(screenAlertMessage({ alert_type: 'screen_exit', note: 'check' }, 'Momentum', '005930', { ...quote, change_percent: null })).toBe(
      'Samsung Electronics (005930) left the screen "Momentum" at 72,000 — check',
    );
    expect(screenAlertMessage({ alert_type: 'screen_exit' }, 'Momentum', '999999', null)).toBe('999999 left the screen "Momentum"');
  });
});
