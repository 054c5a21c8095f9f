/**
 * The work guard and the fair share of expensive screening work: a deadline on the work's own
 * CPU slices (not on time spent waiting), a stop when the client left, and turns taken between
 * users so one user's burst waits behind itself. Clocks are injected; nothing here is timed.
 */
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../../../daemon/errors.js';
import { createFairShare } from '../../../../../daemon/screening/engine/fair-share.js';
import { ClientGoneError, createWorkGuard } from '../../../../../daemon/screening/engine/work-guard.js';

describe('work guard', () => {
  it('stops work past its CPU deadline with QUERY_TIMEOUT, not counting time it spent yielded', async () => {
    let t = 0;
    const guard = createWorkGuard({ deadlineMs: 100, sliceMs: 10, now: () => t });
    // 9 slices of 10 ms of work, each followed by 1,000 ms elsewhere (other requests): 90 ms used.
    for (let i = 0; i < 9; i++) {
      t += 10;
      const yielded = guard.checkpoint();
      t += 1000;
      await yielded;
    }
    expect(guard.used()).toBe(90);
    t += 20;
    const err = await guard.checkpoint().then(() => null, (e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('QUERY_TIMEOUT');
    expect(isAppError(err) && err.details.deadline_ms).toBe(100);
  });

  it('does not count the time spent waiting for work built elsewhere (a shared as-of snapshot)', async () => {
    let t = 0;
    const guard = createWorkGuard({ deadlineMs: 100, sliceMs: 10, now: () => t });
    t += 5;
    // 60 s spent building a snapshot under a slicer of its own
    const built = await guard.wait(async () => {
      t += 60_000;
      return 'snapshot';
    });
    expect(built).toBe('snapshot');
    t += 5;
    await guard.checkpoint();
    expect(guard.used()).toBe(10);
  });

  it('stops at the next checkpoint once the client has gone', async () => {
    const controller = new AbortController();
    const guard = createWorkGuard({ deadlineMs: 1e9, signal: controller.signal, now: () => 0 });
    await guard.checkpoint();
    controller.abort();
    await expect(guard.checkpoint()).rejects.toBeInstanceOf(ClientGoneError);
  });
});

describe('fair share', () => {
  const gate = () => {
    let open!: () => void;
    const p = new Promise<void>((r) => (open = r));
    return { p, open };
  };

  it("lets another user's request run before the rest of one user's burst", async () => {
    const fair = createFairShare({ concurrency: 1, perUser: 1, perUserQueue: 10 });
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const job = (user: string, name: string) => fair.run(user, async () => {
      started.push(name);
      const g = gate();
      gates.set(name, g);
      await g.p;
    });
    const all = [job('a', 'a1'), job('a', 'a2'), job('a', 'a3'), job('b', 'b1')];
    await Promise.resolve();
    expect(started).toEqual(['a1']);
    gates.get('a1')!.open();
    await new Promise((r) => setImmediate(r));
    // b waited for one of a's requests, not for all of them
    expect(started).toEqual(['a1', 'b1']);
    gates.get('b1')!.open();
    await new Promise((r) => setImmediate(r));
    gates.get('a2')!.open();
    await new Promise((r) => setImmediate(r));
    gates.get('a3')!.open();
    await Promise.all(all);
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3']);
    expect(fair.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a user whose queue is full with 429, and keeps serving the others', async () => {
    const fair = createFairShare({ concurrency: 1, perUser: 1, perUserQueue: 1 });
    const g = gate();
    const first = fair.run('a', () => g.p);
    const second = fair.run('a', async () => 'queued');
    const err = await fair.run('a', async () => 'refused').then(() => null, (e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('RATE_LIMIT_EXCEEDED');
    const other = fair.run('b', async () => 'b');
    g.open();
    await expect(Promise.all([first, second, other])).resolves.toEqual([undefined, 'queued', 'b']);
  });
});
