/**
 * The as-of thread: as-of snapshots computed on a worker thread (the built module, as the daemon
 * runs it) are the snapshots the daemon's own thread computes, on both paths (picked from series,
 * computed for the date); the market's bars reach the thread without a copy; a build cut short by
 * closing the thread answers 503, and the next one starts a thread again; on Linux the thread
 * runs at a lower CPU priority than the daemon's own.
 */
import { getPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createAsOfService, type AsOfService } from '../../../../daemon/history/as-of-service.js';
import { AS_OF_THREAD_NICE, createAsOfThread } from '../../../../daemon/history/as-of-thread.js';
import { INDICATOR_IDS } from '../../../../daemon/indicators/registry.js';
import { createMemoryBudget } from '../../../../daemon/screening/engine/memory-budget.js';
import { sampleHistory, snapshotDifferences } from './sample-history.js';

const history = sampleHistory(30, 420, 330);
const perField = history.dates.length * history.stocks.length * 8;

const differences = snapshotDifferences;

const services: AsOfService[] = [];
/** An as-of service over the sample history, its budget `fields` series wide, on the thread or not. */
function service(thread: boolean, fields: number): AsOfService {
  const memory = createMemoryBudget(perField * fields);
  const s = createAsOfService({
    version: () => history.version, loadHistory: async () => history, memory, warmFields: [],
    ...(thread ? { builder: createAsOfThread({ memory, warmFields: [] }) } : {}),
  });
  services.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

describe('the as-of thread', () => {
  it('hands the market bars over in shared memory: the thread reads them, nothing copies them', () => {
    for (const stock of history.stocks.slice(0, 3)) {
      expect(stock.close.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(stock.days.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
    // One buffer per column for the whole market, each stock a view of its stretch.
    expect(history.stocks[1]!.close.buffer).toBe(history.stocks[0]!.close.buffer);
  });

  it('computes the snapshots this thread computes, from series and date by date, bit for bit', async () => {
    // Given one service computing here and one on the thread, with room for 40 series
    const here = service(false, 40);
    const there = service(true, 40);
    const cases: { day: number; fields: readonly string[]; dates: number }[] = [
      // a few fields over many dates: from the series
      { day: 330, fields: ['per', 'roe', 'rsi_14'], dates: 10 },
      { day: 331, fields: ['per', 'roe', 'rsi_14'], dates: 10 },
      // every field for one date: computed for the date
      { day: 150, fields: INDICATOR_IDS, dates: 1 },
      { day: history.dates.length - 1, fields: INDICATOR_IDS, dates: 1 },
    ];
    for (const c of cases) {
      const at = await here.resolve(history.dates[c.day]!);
      const [a, b] = [await here.snapshotOf(at, 'full', c.fields, c.dates), await there.snapshotOf(await there.resolve(at.date), 'full', c.fields, c.dates)];
      expect(differences(a, b, c.fields)).toEqual([]);
      expect(b.size).toBeGreaterThan(20);
    }
    // and both took the same path: the thread's series stats reach this thread
    expect(there.stats().date_builds).toBe(here.stats().date_builds);
    expect(there.stats().date_builds).toBe(2);
    expect(there.stats().series).toMatchObject({ fields: here.stats().series?.fields, builds: here.stats().series?.builds });
  });

  it('answers a build cut short by closing the thread with 503, and starts a thread again for the next', async () => {
    const there = service(true, 40);
    const at = await there.resolve(history.dates[200]!);
    // When the thread is closed while a date of every field is being computed
    const cut = there.snapshotOf(at, 'full', INDICATOR_IDS);
    const settled = cut.then(() => 'answered', (err: { status?: number; code?: string }) => `${err.status} ${err.code}`);
    await there.close();
    // Then that build fails as a temporary unavailability
    expect(await settled).toBe('503 SERVICE_UNAVAILABLE');
    // and another date is computed by a new thread, equal to this thread's computation
    const next = await there.snapshotOf(await there.resolve(history.dates[201]!), 'full', ['per', 'rsi_14']);
    const here = service(false, 40);
    const reference = await here.snapshotOf(await here.resolve(history.dates[201]!), 'full', ['per', 'rsi_14']);
    expect(differences(reference, next, ['per', 'rsi_14'])).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('runs at a lower CPU priority than the thread that answers requests', async () => {
    const memory = createMemoryBudget(perField * 10);
    const thread = createAsOfThread({ memory, warmFields: [] });
    const there = createAsOfService({ version: () => history.version, loadHistory: async () => history, memory, builder: thread });
    services.push(there);
    await there.snapshotOf(await there.resolve(history.dates[300]!), 'full', ['per']);
    const info = thread.thread();
    expect(info).toBeDefined();
    // The system's own reading of that thread's nice value, not the thread's word for it
    expect(getPriority(info!.tid)).toBe(Math.min(19, getPriority() + AS_OF_THREAD_NICE));
    expect(getPriority(info!.tid)).toBeGreaterThan(getPriority());
  });
});
