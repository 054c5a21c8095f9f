import { describe, expect, it } from 'vitest';
import { createEventHub } from '../../../../../cli/services/output/event-hub.js';

describe('event hub', () => {
  it('replays what was emitted before the first listener, then delivers live', () => {
    const hub = createEventHub<number>(2);
    hub.emit(1);
    hub.emit(2);
    hub.emit(3); // over the buffer of 2: the oldest is dropped
    const seen: number[] = [];
    const off = hub.subscribe((n) => seen.push(n));
    hub.emit(4);
    off();
    hub.emit(5);
    expect(seen).toEqual([2, 3, 4]);
  });
});
