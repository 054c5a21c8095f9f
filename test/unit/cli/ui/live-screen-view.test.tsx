import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { initialLiveScreenState, reduceLiveMessage, type LiveScreenState } from '../../../../cli/services/realtime/live-screen-state.js';
import { LiveScreenView } from '../../../../cli/ui/components/LiveScreenView.js';

const T0 = Date.parse('2026-03-09T01:00:00Z');
const subscribed = {
  type: 'subscribed', subscription_type: 'screen', screen_id: 'abc', source: 'template:momentum', total: 40, sort: [{ field: 'change_percent', direction: 'desc' }],
  members: [
    { code: '000010', name: '가온', price: 1000, change_percent: 5 },
    { code: '000020', name: '나래', price: 2000, change_percent: 3 },
  ],
};
const update = { type: 'screen_update', screen_id: 'abc', entered: [{ code: '000030', name: '다온', price: 500, change_percent: 4 }], exited: ['000020'], count: 2, total: 41, timestamp: '2026-03-09T01:00:05.000Z' };

describe('live screen state', () => {
  it('keeps the members in the screen order through entries and exits, logs them and flashes the new rows', () => {
    let s: LiveScreenState = reduceLiveMessage(initialLiveScreenState(), subscribed, T0);
    s = reduceLiveMessage(s, update, T0 + 5000);
    expect(s.members.map((m) => m.code)).toEqual(['000010', '000030']);
    expect(s.log).toEqual([
      { kind: 'enter', code: '000030', name: '다온', at: update.timestamp },
      { kind: 'exit', code: '000020', name: '나래', at: update.timestamp },
    ]);
    expect(s).toMatchObject({ count: 2, total: 41, entered: 1, exited: 1 });
    expect(s.flashes['000030']).toBeGreaterThan(T0 + 5000);
    // Another screen's update is ignored.
    expect(reduceLiveMessage(s, { ...update, screen_id: 'other' }, T0)).toBe(s);
  });
});

describe('the live screen view', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  it('shows the counts, the members with the sort field and the event log with times', () => {
    const initial = reduceLiveMessage(reduceLiveMessage(initialLiveScreenState(), subscribed, T0), update, T0);
    app = render(<LiveScreenView subscribe={() => () => undefined} color={false} interactive={false} onExit={() => undefined} initial={initial} />);
    const frame = app.lastFrame() ?? '';
    expect(frame).toContain('template:momentum');
    expect(frame).toContain('members 2 · matching 41 · entered 1 · exited 1');
    expect(frame).toMatch(/000010\s+가온\s+1,000\s+5/);
    expect(frame).toContain('01:00:05 + 편입 000030 다온');
    expect(frame).toContain('01:00:05 − 이탈 000020 나래');
  });
});
