/**
 * The whole-list re-run scheduler on a manual clock: slices stop at their budget, the pause
 * after a slice keeps the re-runs within their share of a core, a list marked again keeps its
 * place, and nothing runs synchronously when a list is marked.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRerunScheduler } from '../../../../daemon/live/rerun-scheduler.js';

let clock = 0;
beforeEach(() => {
  vi.useFakeTimers();
  clock = 0;
});
afterEach(() => vi.useRealTimers());

/** A scheduler whose every re-run costs `costMs` of the manual clock; `ran` lists the jobs in order. */
function scheduler(costMs: number) {
  const ran: string[] = [];
  const s = createRerunScheduler<string>((job) => {
    clock += costMs;
    ran.push(job);
  }, { share: 0.2, sliceMs: 8, everyMs: 25 }, () => clock);
  return { s, ran };
}

/** A scheduler of jobs of six units of 5 ms each, awaiting the checkpoint before each; `units` lists them as they ran. */
function slicedScheduler() {
  const units: string[] = [];
  const s = createRerunScheduler<string>(async (job, checkpoint) => {
    for (let u = 0; u < 6; u++) {
      await checkpoint!();
      clock += 5;
      units.push(`${job}${u}`);
    }
  }, { share: 0.2, sliceMs: 8, everyMs: 25 }, () => clock);
  return { s, units };
}

describe('whole-list re-run scheduler', () => {
  it('runs nothing when a list is marked; runs the lists in slices of its budget, pausing four times a slice between them', async () => {
    // Given ten lists costing 5 ms each, all marked by a tick
    const { s, ran } = scheduler(5);
    for (let i = 0; i < 10; i++) s.mark(`l${i}`);
    // Then marking ran nothing
    expect(ran).toEqual([]);
    // When the first slice runs: two lists (5 ms, then 10 ms ≥ the 8 ms slice), then it yields
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toEqual(['l0', 'l1']);
    // The next slice waits 10 ms × (1 − 0.2) / 0.2 = 40 ms: at most a fifth of the time is re-runs
    clock += 39;
    await vi.advanceTimersByTimeAsync(39);
    expect(ran).toHaveLength(2);
    clock += 1;
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual(['l0', 'l1', 'l2', 'l3']);
    expect(s.pending()).toBe(6);
    s.close();
  });

  it('keeps its share when the queue ran dry: a list marked right after the last slice waits out that slice\'s pause', async () => {
    // Given one list costing 10 ms, re-run at once, which empties the queue
    const { s, ran } = scheduler(10);
    s.mark('a');
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toEqual(['a']);
    // When another list is marked straight after
    s.mark('b');
    // Then it waits the 40 ms pause of the 10 ms slice (10 × 0.8 / 0.2), not a timer's minimum
    clock += 39;
    await vi.advanceTimersByTimeAsync(39);
    expect(ran).toEqual(['a']);
    clock += 1;
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual(['a', 'b']);
    s.close();
  });

  it('keeps a list marked again in its place in the queue, and drops a closed list', async () => {
    const { s, ran } = scheduler(5);
    for (const j of ['a', 'b', 'c', 'd']) s.mark(j);
    s.mark('a');
    s.drop('b');
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toEqual(['a', 'c']);
    s.close();
  });

  it('re-runs one list at most once every everyMs however often ticks mark it', async () => {
    // Given a cheap list marked by a tick every millisecond for 100 ms
    const { s, ran } = scheduler(1);
    for (let t = 0; t < 100; t++) {
      s.mark('x');
      clock += 1;
      await vi.advanceTimersByTimeAsync(1);
    }
    // Then it ran about once every 25 ms (not 100 times): 100 / 25 periods, the first at once
    expect(ran.length).toBeGreaterThanOrEqual(4);
    expect(ran.length).toBeLessThanOrEqual(5);
    s.close();
  });

  it('runs one dear list in slices too: its work pauses at the checkpoint for the share, and nothing else runs meanwhile', async () => {
    // Given one list whose re-run is six units of 5 ms, awaiting the checkpoint between units
    const { s, units } = slicedScheduler();
    s.mark('dear');
    // When its slice starts: two units (10 ms ≥ the 8 ms slice), then it waits
    await vi.advanceTimersByTimeAsync(0);
    expect(units).toEqual(['dear0', 'dear1']);
    // And a list marked meanwhile does not start a slice of its own
    s.mark('other');
    clock += 39;
    await vi.advanceTimersByTimeAsync(39);
    expect(units).toHaveLength(2);
    // Then after 10 × (1 − 0.2) / 0.2 = 40 ms the next two units run, and so on
    clock += 1;
    await vi.advanceTimersByTimeAsync(1);
    expect(units).toEqual(['dear0', 'dear1', 'dear2', 'dear3']);
    clock += 40;
    await vi.advanceTimersByTimeAsync(40);
    expect(units).toHaveLength(6);
    expect(s.pending()).toBe(1);
    s.close();
  });

  it('stops a sliced re-run at its next checkpoint once closed', async () => {
    const { s, units } = slicedScheduler();
    s.mark('dear');
    await vi.advanceTimersByTimeAsync(0);
    expect(units).toEqual(['dear0', 'dear1']);
    s.close();
    clock += 100;
    await vi.advanceTimersByTimeAsync(100);
    expect(units).toEqual(['dear0', 'dear1']);
  });

  it('settle runs every waiting list at once (benches and tests comparing with the engine)', () => {
    const { s, ran } = scheduler(5);
    for (const j of ['a', 'b', 'c']) s.mark(j);
    s.settle();
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(s.pending()).toBe(0);
    s.close();
  });
});
