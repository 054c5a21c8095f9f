import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEventHub } from '../../../../cli/services/output/event-hub.js';
import { initialWatchState } from '../../../../cli/services/realtime/watch-state.js';
import type { WsClientEvent } from '../../../../cli/services/transport/ws-client.js';
import { WatchScreen } from '../../../../cli/ui/components/WatchScreen.js';

const DOWN = '\u001B[B';
const UP = '\u001B[A';

const book = (code: string, bid: number, ask: number): WsClientEvent => ({
  type: 'message',
  message: { type: 'orderbook_update', code, bids: [{ price: bid, quantity: 11 }], asks: [{ price: ask, quantity: 22 }] },
});
const price = (code: string, p: number, change: number): WsClientEvent => ({
  type: 'message',
  message: { type: 'price_update', code, name: `Stock ${code}`, price: p, change, change_percent: 1.5, volume: 1234567 },
});

describe('WatchScreen', () => {
  let app: ReturnType<typeof render> | undefined;
  afterEach(() => app?.cleanup());

  function open() {
    const hub = createEventHub<WsClientEvent>();
    const onExit = vi.fn();
    app = render(<WatchScreen subscribe={hub.subscribe} initial={initialWatchState(['005930', '000660'])} color={false} loggedIn interactive onExit={onExit} throttleMs={0} />);
    return { hub, onExit, app };
  }

  it('shows prices, the connection state, market status and alerts as they arrive', async () => {
    const { hub, app } = open();
    hub.emit({ type: 'status', status: { state: 'restored', sessionId: 'S', missed: 3, estimated: false, historyTruncated: false } });
    hub.emit(price('005930', 72000, 1000));
    hub.emit({ type: 'message', message: { type: 'market_status', market: 'KOSPI', status: 'open' } });
    hub.emit({ type: 'message', message: { type: 'alert', code: '005930', alert_type: 'price_above', threshold: 71000, current_price: 72000, message: 'Samsung reached 71,000', timestamp: '2025-03-04T01:02:03.000Z' } });
    await vi.waitFor(() => expect(app.lastFrame()).toContain('Samsung reached 71,000'));
    const frame = app.lastFrame()!;
    expect(frame).toContain('● restored with 3 missed');
    expect(frame).toContain('KOSPI open');
    expect(frame).toMatch(/005930\s+Stock 005930\s+72,000\s+\+1,000\s+\+1\.50%\s+1,234,567/);
    expect(frame).toContain('01:02:03  005930  price_above 71,000 → 72,000');
  });

  it('shows the order book of the row selected with the arrow keys', async () => {
    const { hub, app } = open();
    hub.emit(book('005930', 71900, 72000));
    hub.emit(book('000660', 199500, 200000));
    await vi.waitFor(() => expect(app.lastFrame()).toMatch(/ASK\s+72,000\s+22/));
    expect(app.lastFrame()).toContain('Order book 005930');
    expect(app.lastFrame()).toMatch(/BID\s+71,900\s+11/);
    await vi.waitFor(() => expect(app.stdin.listenerCount('readable') + app.stdin.listenerCount('data')).toBeGreaterThan(0));
    app.stdin.write(DOWN);
    await vi.waitFor(() => expect(app.lastFrame()).toMatch(/BID\s+199,500\s+11/));
    expect(app.lastFrame()).toContain('Order book 000660');
    app.stdin.write(DOWN); // already on the last row: stays
    app.stdin.write(UP);
    await vi.waitFor(() => expect(app.lastFrame()).toMatch(/BID\s+71,900\s+11/));
  });

  it('quits on q', async () => {
    const { onExit, app } = open();
    await vi.waitFor(() => expect(app.stdin.listenerCount('readable') + app.stdin.listenerCount('data')).toBeGreaterThan(0));
    app.stdin.write('q');
    await vi.waitFor(() => expect(onExit).toHaveBeenCalledTimes(1));
  });
});
