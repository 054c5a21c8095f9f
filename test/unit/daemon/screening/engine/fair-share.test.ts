/**
 * The fair-share gate decides who runs expensive screening work next: a burst from one user
 * waits behind itself, another user's request takes the next free place, and a user with too
 * many requests waiting is refused.
 */
import { describe, expect, it } from 'vitest';
import { createFairShare } from '../../../../../daemon/screening/engine/fair-share.js';

/** A task that runs until released, recording when it started. */
function gated(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { release, task: async () => { log.push(name); await done; return name; } };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('fair share', () => {
  it("starts another user's request before the rest of one user's burst", async () => {
    const gate = createFairShare({ concurrency: 2, perUser: 1, perUserQueue: 10 });
    const log: string[] = [];
    const a = [0, 1, 2].map((i) => gated(log, `a${i}`));
    const runs = a.map((g) => gate.run('alice', g.task));
    await settle();
    const b = gated(log, 'b0');
    const bRun = gate.run('bob', b.task);
    await settle();
    // alice holds her one turn; bob gets the second place at once
    expect(log).toEqual(['a0', 'b0']);
    expect(gate.stats()).toEqual({ running: 2, waiting: 2 });
    b.release();
    await bRun;
    await settle();
    // the freed place is not alice's: her per-user turn is still taken
    expect(log).toEqual(['a0', 'b0']);
    a[0]!.release();
    await runs[0];
    await settle();
    expect(log).toEqual(['a0', 'b0', 'a1']);
    a[1]!.release();
    a[2]!.release();
    await Promise.all(runs);
    expect(log).toEqual(['a0', 'b0', 'a1', 'a2']);
    expect(gate.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('gives a freed place to the waiting user whose last turn is oldest', async () => {
    const gate = createFairShare({ concurrency: 1, perUser: 1, perUserQueue: 10 });
    const log: string[] = [];
    const first = gated(log, 'a0');
    const runs = [gate.run('alice', first.task)];
    const rest = ['a1', 'a2', 'b0', 'b1'].map((n) => gated(log, n));
    for (const g of rest) runs.push(gate.run(g === rest[2] || g === rest[3] ? 'bob' : 'alice', g.task));
    await settle();
    first.release();
    for (const g of rest) {
      await settle();
      g.release();
    }
    await Promise.all(runs);
    // alice, then bob (never served), then alice and bob in turn
    expect(log).toEqual(['a0', 'b0', 'a1', 'b1', 'a2']);
  });

  it('refuses with 429 a user whose waiting requests are at the cap, and still runs the others', async () => {
    const gate = createFairShare({ concurrency: 1, perUser: 1, perUserQueue: 2 });
    const log: string[] = [];
    const g = [0, 1, 2].map((i) => gated(log, `a${i}`));
    const runs = g.map((x) => gate.run('alice', x.task));
    await settle();
    await expect(gate.run('alice', async () => 'late')).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    for (const x of g) x.release();
    await expect(Promise.all(runs)).resolves.toEqual(['a0', 'a1', 'a2']);
  });
});
