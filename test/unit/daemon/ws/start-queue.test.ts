import { describe, expect, it } from 'vitest';
import { createStartQueue } from '../../../../daemon/ws/start-queue.js';

/** A start the test finishes by hand, recording when it began. */
function manualStart(log: string[], name: string) {
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { start: () => (log.push(name), done), finish: () => finish(), fail: (err: Error) => fail(err) };
}

/** Resolves after the queue had a turn of the event loop (its waiting starts begin from setImmediate). */
const turn = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe('connection start queue', () => {
  it('begins a start at once while a slot is free and nothing waits', () => {
    // Given a queue of two slots
    const log: string[] = [];
    const q = createStartQueue(2, () => undefined);
    // When one start is run
    q.run(manualStart(log, 'a').start, () => true);
    // Then it began synchronously
    expect(log).toEqual(['a']);
    expect(q.active()).toBe(1);
  });

  it('never runs more starts than its slots, and begins the waiting ones in arrival order as slots free', async () => {
    // Given a queue of two slots and five starts
    const log: string[] = [];
    const q = createStartQueue(2, () => undefined);
    const starts = ['a', 'b', 'c', 'd', 'e'].map((n) => manualStart(log, n));
    for (const s of starts) q.run(s.start, () => true);
    await turn();
    // Then two run and three wait
    expect(log).toEqual(['a', 'b']);
    expect([q.active(), q.waiting()]).toEqual([2, 3]);
    // When the first finishes
    starts[0]!.finish();
    await turn();
    // Then the next one in arrival order begins
    expect(log).toEqual(['a', 'b', 'c']);
    expect([q.active(), q.waiting()]).toEqual([2, 2]);
    for (const s of starts.slice(1)) s.finish();
    await turn();
    await turn();
    expect(log).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect([q.active(), q.waiting()]).toEqual([0, 0]);
  });

  it('drops a waiting start no longer wanted (its socket closed) and gives a failed start’s slot back', async () => {
    // Given a queue of one slot, busy, with two starts waiting, the first of which is no longer wanted
    const log: string[] = [];
    const errors: string[] = [];
    const q = createStartQueue(1, (err) => errors.push(err.message));
    const a = manualStart(log, 'a');
    q.run(a.start, () => true);
    q.run(manualStart(log, 'closed').start, () => false);
    const c = manualStart(log, 'c');
    q.run(c.start, () => true);
    // When the running start fails
    a.fail(new Error('boom'));
    await turn();
    // Then its error is reported, the unwanted start never begins and the next one does
    expect(errors).toEqual(['boom']);
    expect(log).toEqual(['a', 'c']);
    c.finish();
  });
});
