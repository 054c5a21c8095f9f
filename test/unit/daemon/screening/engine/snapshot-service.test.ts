import { describe, expect, it } from 'vitest';
import { createSnapshotService } from '../../../../../daemon/screening/engine/snapshot-service.js';
import { buildSnapshot, buildSnapshotSliced, valueAt, type Snapshot, type SnapshotRow } from '../../../../../daemon/screening/engine/snapshot.js';
import { executeQuery } from '../../../../../daemon/screening/engine/query.js';
import { createTimeSlicer } from '../../../../../daemon/screening/engine/time-slicer.js';
import { FIELDS, ROWS } from '../fixture.js';

/** The fixture rows with every `per` replaced, so two versions are told apart by value. */
function rowsWithPer(per: number): SnapshotRow[] {
  return ROWS.map((r) => ({ ...r, values: { ...r.values, per } }));
}

/** A clock that advances `step` ms on every reading: every checkpoint then exceeds a budget below `step`. */
function steppingClock(step: number): () => number {
  let t = 0;
  return () => (t += step);
}

/** Everything a query can observe of a snapshot, to compare old and new whole. */
function observe(s: Snapshot) {
  const all = executeQuery(s, { universe: {}, filters: [], sort: [{ field: 'code', direction: 'asc' }], page: 1, per_page: 100, fields: [...FIELDS] });
  return { version: s.version, size: s.size, items: all.items };
}

describe('buildSnapshotSliced', () => {
  it('builds the same snapshot as buildSnapshot, awaiting a checkpoint between units of work', async () => {
    // Given the fixture rows
    let checkpoints = 0;
    // When the snapshot is built in slices
    const sliced = await buildSnapshotSliced(ROWS, FIELDS, 'v1', async () => void checkpoints++);
    // Then it equals the one-step build, and it paused once per column plus the set-up steps
    expect(observe(sliced)).toEqual(observe(buildSnapshot(ROWS, FIELDS, 'v1')));
    expect(checkpoints).toBe(FIELDS.length + 2);
  });
});

describe('createTimeSlicer', () => {
  it('yields only once a slice has used its budget and reports the longest slice', async () => {
    // Given a slicer with a 4 ms budget on a clock the test moves by hand
    let t = 0;
    let yields = 0;
    const slicer = createTimeSlicer({ budgetMs: 4, now: () => t, yieldToLoop: async () => void yields++ });
    // When work runs 1 ms, 1 ms, 3 ms (slice 5 ms → yield), then 2 ms and finishes
    t = 1;
    await slicer.checkpoint();
    t = 2;
    await slicer.checkpoint();
    t = 5;
    await slicer.checkpoint();
    t = 7;
    const stats = slicer.finish();
    // Then it yielded once, ran in two slices, and the longest was 5 ms
    expect(yields).toBe(1);
    expect(stats).toEqual({ slices: 2, longest_slice_ms: 5, total_ms: 7 });
  });
});

describe('createSnapshotService', () => {
  it('swaps in a new version atomically: queries during the build see the old snapshot whole', async () => {
    // Given a holder whose current snapshot is version v1 (per = 5 everywhere)
    let source = { version: 'v1', rows: rowsWithPer(5) };
    const seenDuringBuild: ReturnType<typeof observe>[] = [];
    let service!: ReturnType<typeof createSnapshotService>;
    service = createSnapshotService({
      fields: FIELDS,
      loadRows: async () => source,
      // Every checkpoint yields; the "event loop turn" is where a request would read the snapshot.
      slicing: { budgetMs: 0, now: steppingClock(1), yieldToLoop: async () => void seenDuringBuild.push(observe(service.current())) },
    });
    await service.refresh();
    const v1 = observe(service.current());
    expect(v1.version).toBe('v1');
    seenDuringBuild.length = 0;

    // When version v2 (per = 9) is announced and built
    source = { version: 'v2', rows: rowsWithPer(9) };
    const swapped = await service.refresh('v2');

    // Then every read during the build saw v1 complete, and afterwards v2 is served
    expect(seenDuringBuild.length).toBeGreaterThan(FIELDS.length);
    for (const seen of seenDuringBuild) expect(seen).toEqual(v1);
    expect(swapped).toBe(service.current());
    expect(service.current().version).toBe('v2');
    expect(valueAt(service.current(), 'per', 0)).toBe(9);
    // And the build figures are exposed for the benchmark
    expect(service.lastBuild()).toMatchObject({ version: 'v2', stocks: ROWS.length, fields: FIELDS.length, slices: seenDuringBuild.length + 1 });
    expect(service.lastBuild()!.longest_slice_ms).toBeGreaterThan(0);
  });

  it('keeps the old snapshot when the build fails or the loader throws', async () => {
    // Given a holder serving v1
    let load: () => Promise<{ version: string; rows: SnapshotRow[] }> = async () => ({ version: 'v1', rows: rowsWithPer(5) });
    const service = createSnapshotService({ fields: FIELDS, loadRows: () => load() });
    await service.refresh();
    const v1 = service.current();

    // When v2's rows cannot be built (two rows share a code)
    load = async () => ({ version: 'v2', rows: [...rowsWithPer(9), ROWS[0]!] });
    // Then the refresh rejects and v1 is still served, unchanged
    await expect(service.refresh('v2')).rejects.toThrow(/duplicate stock code/);
    expect(service.current()).toBe(v1);

    // When the loader itself fails
    load = async () => Promise.reject(new Error('database gone'));
    await expect(service.refresh('v3')).rejects.toThrow('database gone');
    expect(service.current()).toBe(v1);
    expect(service.lastBuild()?.version).toBe('v1');

    // And a later good version still swaps in
    load = async () => ({ version: 'v4', rows: rowsWithPer(1) });
    expect((await service.refresh('v4')).version).toBe('v4');
  });

  it('skips a version it already holds and shares one rebuild between concurrent calls', async () => {
    // Given a loader that counts its calls
    let loads = 0;
    const service = createSnapshotService({ fields: FIELDS, loadRows: async () => (loads++, { version: 'v1', rows: ROWS }) });
    // When three refreshes are asked at once, then v1 is announced again
    const [a, b, c] = await Promise.all([service.refresh(), service.refresh(), service.refresh()]);
    await service.refresh('v1');
    // Then they got one snapshot; the first rebuild ran once more for the calls that arrived during it, and v1 was not reloaded
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(loads).toBe(2);
  });
});
