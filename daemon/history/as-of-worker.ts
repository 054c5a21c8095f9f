/**
 * The as-of thread's entry: a local builder (as-of-builder.ts) with its own memory budget, fed
 * the market history by the daemon's thread and asked for dates' columns. Replies carry the
 * columns as transferred buffers (no copy) and what the thread's budget holds, so the daemon
 * counts it against the daemon's own.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexBar, Market } from '../kernel/records.js';
import { createMemoryBudget } from '../screening/engine/memory-budget.js';
import { createLocalBuilder } from './as-of-builder.js';
import type { MarketHistory, StockHistory } from './market-history.js';
import { HISTORIES_KEPT, type FromThread, type ToThread, type ThreadOptions } from './as-of-thread.js';

const options = workerData as ThreadOptions;
const memory = createMemoryBudget(options.budgetBytes);
const builder = createLocalBuilder(memory, options.warmFields);
const port = parentPort;
if (!port) throw new Error('as-of-worker runs as a worker thread');

/** The history being received (in parts), and the ones builds read by version (the last HISTORIES_KEPT, oldest first). */
let receiving: { version: string; dates: readonly string[]; index: Record<Market, IndexBar[]>; stocks: StockHistory[] } | undefined;
const histories = new Map<string, MarketHistory>();

const send = (message: FromThread, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

/**
 * Lower this thread's CPU priority (Linux: a thread id set apart from its process's), so on a
 * busy machine the as-of work gets what the daemon's request thread leaves instead of an equal
 * share. Elsewhere, or when the system refuses, it runs at the daemon's priority.
 */
function lowerPriority(by: number): { tid: number; nice: number } | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return undefined;
    setPriority(tid, Math.min(19, getPriority(tid) + by));
    return { tid, nice: getPriority(tid) };
  } catch {
    return undefined;
  }
}

send({ type: 'started', thread: lowerPriority(options.lowerPriorityBy) });
const held = (): number => memory.stats().used;

function receive(message: ToThread): void {
  switch (message.type) {
    case 'history':
      receiving = { version: message.version, dates: message.dates, index: message.index, stocks: [] };
      return;
    case 'stocks':
      if (receiving?.version === message.version) receiving.stocks.push(...message.stocks);
      return;
    case 'history-end': {
      if (receiving?.version !== message.version) return;
      const { version, dates, index, stocks } = receiving;
      receiving = undefined;
      const h: MarketHistory = { version, dates, index, stocks, byCode: new Map(stocks.map((s) => [s.record.code, s])) };
      histories.delete(version);
      histories.set(version, h);
      if (histories.size > HISTORIES_KEPT) histories.delete(histories.keys().next().value as string);
      void builder.use(h).then(() => builder.warmed()).then(() => send({ type: 'warmed', version, held: held(), series: builder.seriesStats() }));
      return;
    }
    case 'columns': {
      const h = histories.get(message.version);
      if (!h) {
        send({ type: 'failed', id: message.id, message: `the as-of thread holds no history of version ${message.version}`, held: held(), gone: true });
        return;
      }
      builder.columns(h, message.day, message.depth, message.fields, message.dates).then(
        (built) => {
          const names = [...built.columns.keys()];
          const arrays = names.map((n) => built.columns.get(n) as Float64Array);
          const listed = Int32Array.from(built.listed);
          send(
            { type: 'columns', id: message.id, listed, names, arrays, fromSeries: built.fromSeries, held: held(), series: builder.seriesStats() },
            [...new Set([listed.buffer, ...arrays.map((a) => a.buffer as ArrayBuffer)])],
          );
        },
        (err: Error) => send({ type: 'failed', id: message.id, message: err.message, held: held() }),
      );
      return;
    }
  }
}

port.on('message', receive);
