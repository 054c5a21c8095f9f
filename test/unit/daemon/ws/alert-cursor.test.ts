import { describe, expect, it } from 'vitest';
import { ALERT_REORDER_MS, advanceAlertCursor, alertReplayFloor, alertSeen, newAlertCursor } from '../../../../daemon/ws/alert-cursor.js';

const T = 1_700_000_000_000;

describe('alert cursor', () => {
  it('Given a new session, when nothing was sent, then missed alerts are those fired since the session started', () => {
    expect(alertReplayFloor(newAlertCursor(T), T)).toBe(T);
  });

  it('Given alerts sent, when asked where replay starts, then it starts a reorder window before the newest and skips what was sent', () => {
    let c = newAlertCursor(T);
    c = advanceAlertCursor(c, { id: 'a', ts: T + 10_000 });
    c = advanceAlertCursor(c, { id: 'b', ts: T + 12_000 });
    expect(c.at).toBe(T + 12_000);
    expect(alertReplayFloor(c, T)).toBe(T + 12_000 - ALERT_REORDER_MS);
    expect(alertSeen(c, 'a')).toBe(true); // inside the window: kept to be skipped
    expect(alertSeen(c, 'b')).toBe(true);
    expect(alertSeen(c, 'x')).toBe(false);
  });

  it('Given an alert sent late (older than the newest), when advanced, then the cursor does not move back and the alert counts as seen', () => {
    let c = advanceAlertCursor(newAlertCursor(T), { id: 'b', ts: T + 12_000 });
    c = advanceAlertCursor(c, { id: 'a', ts: T + 11_000 });
    expect(c.at).toBe(T + 12_000);
    expect(alertSeen(c, 'a')).toBe(true);
  });

  it('Given alerts older than the window, when advanced, then they are forgotten (the floor already excludes them)', () => {
    let c = advanceAlertCursor(newAlertCursor(T), { id: 'old', ts: T + 1000 });
    c = advanceAlertCursor(c, { id: 'new', ts: T + 1000 + ALERT_REORDER_MS + 1 });
    expect(c.seen.map((s) => s.id)).toEqual(['new']);
  });

  it('does not change its input', () => {
    const c = newAlertCursor(T);
    advanceAlertCursor(c, { id: 'a', ts: T + 1 });
    expect(c).toEqual({ at: T, seen: [] });
  });
});
