import { describe, expect, it } from 'vitest';
import { type Alert, ALERT_TYPES } from '../../../../../daemon/contract/alerts.js';
import { ALERT_TYPES as DAEMON_ALERT_TYPES } from '../../../../../daemon/kernel/alert-types.js';
import { alertCells, formatThreshold } from '../../../../../cli/services/alerts/alerts.js';
import { alertPatch } from '../../../../../cli/commands/alerts/edit.js';

const alert: Alert = {
  id: 'a1', code: '035720', name: 'Kakao', preset_id: null, alert_type: 'change_percent_below', threshold: -3.5, recurring: true, cooldown_s: 600, membership: null, dwell_s: null, note: null,
  active: true, armed: true, fire_count: 2, last_fired_at: '2025-03-04T01:02:03.000Z', created_at: 'c', updated_at: 'u', channels: [],
};

describe('alerts', () => {
  it('knows the same alert types as the daemon', () => {
    expect([...ALERT_TYPES]).toEqual([...DAEMON_ALERT_TYPES]);
  });

  it('shows thresholds as their type means them', () => {
    expect(formatThreshold('price_above', 80000)).toBe('80,000');
    expect(formatThreshold('change_percent_below', -3.5)).toBe('-3.5%');
    expect(formatThreshold('change_percent_above', 2)).toBe('+2%');
    expect(formatThreshold('volume_above', 3)).toBe('3× avg volume');
  });

  it('keeps raw values for pipes and readable ones for the terminal', () => {
    expect(alertCells(alert, false).slice(4, 8)).toEqual([-3.5, { text: 'yes', tone: 'good' }, 'yes', 600]);
    expect(alertCells(alert, true).slice(4, 8)).toEqual(['-3.5%', { text: 'yes', tone: 'good' }, 'yes', '10m']);
  });

  it('builds the edit body from the flags only', () => {
    expect(alertPatch({ threshold: 5, inactive: true })).toEqual({ threshold: 5, active: false });
    expect(alertPatch({ active: true, oneShot: true, cooldown: 0 })).toEqual({ active: true, recurring: false, cooldown_s: 0 });
    expect(alertPatch({ note: '' })).toEqual({ note: null });
    expect(() => alertPatch({})).toThrow('nothing to change');
  });
});
