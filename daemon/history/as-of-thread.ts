/**
 * The as-of thread: as-of dates' columns computed on a worker thread (as-of-worker.ts) instead
 * of the daemon's. Computing a date of every field for every stock, or a field's series over the
 * whole history, is seconds of CPU and hundreds of MB of short-lived objects; on the daemon's
 * thread that work, however finely sliced, shared one event loop and one collector with every
 * other request, and its full collections paused them all. On its own thread it pauses nothing
 * but itself.
 *
 * The market history is handed over once per data version: its bar columns live in shared
 * buffers (history-loader.ts), so only the statements, halts and records are copied, a hundred
 * stocks per message with a turn of the event loop between. The thread keeps the series of the
 * current history within its share of the memory budget and reports what it holds with every
 * reply; the daemon counts that against its own budget, so its caches make room. A thread that
 * dies (out of its heap, a bug) fails the builds in flight with 503 SERVICE_UNAVAILABLE and is
 * started again by the next one.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.js';
import type { IndexBar, Market } from '../kernel/records.js';
import type { MemoryBudget } from '../screening/engine/memory-budget.js';
import type { AsOfBuilder, BuiltColumns, SeriesStats } from './as-of-builder.js';
import type { MarketHistory, StockHistory } from './market-history.js';
import type { AsOfDepth } from './point-indicators.js';

/** The part of the memory budget the thread's series may hold (the rest: the daemon's as-of snapshots, memo and answers). */
export const AS_OF_THREAD_SHARE = 0.6;

/** Most MB of heap the thread may use before it is stopped (its series are typed arrays, outside the heap). */
export const AS_OF_THREAD_HEAP_MB = 256;

/** How much higher the thread's nice value is than the daemon's (Linux, at most 19): its request thread then gets about ten times the thread's share of a busy core. */
export const AS_OF_THREAD_NICE = 10;

/** Histories the thread keeps (the current one and the one before). */
export const HISTORIES_KEPT = 2;

/** Stocks per message when handing the history over. */
const STOCKS_PER_MESSAGE = 100;

/** What the thread is started with. */
export interface ThreadOptions {
  budgetBytes: number;
  /** Nice steps the thread takes below the daemon's priority. */
  lowerPriorityBy: number;
  warmFields?: readonly (readonly string[])[];
}

/** Messages to the thread. */
export type ToThread =
  | { type: 'history'; version: string; dates: readonly string[]; index: Record<Market, IndexBar[]> }
  | { type: 'stocks'; version: string; stocks: readonly StockHistory[] }
  | { type: 'history-end'; version: string }
  | { type: 'columns'; id: number; version: string; day: number; depth: AsOfDepth; fields: readonly string[]; dates: number };

/** Messages from the thread; `held`: the bytes its budget holds. */
export type FromThread =
  | { type: 'started'; /** Its id and nice value, where it could lower its priority. */ thread: { tid: number; nice: number } | undefined }
  | { type: 'columns'; id: number; listed: Int32Array; names: string[]; arrays: Float64Array[]; fromSeries: boolean; held: number; series: SeriesStats | undefined }
  | { type: 'failed'; id: number; message: string; held: number; /** The thread no longer holds the history asked for: worth asking again. */ gone?: boolean }
  | { type: 'warmed'; version: string; held: number; series: SeriesStats | undefined };

/** How to run the thread. */
export interface AsOfThreadOptions {
  /** The daemon's budget: the thread takes AS_OF_THREAD_SHARE of its limit and is counted in it. */
  memory: MemoryBudget;
  /** Series built in the background once the thread has a history (default WARM_FIELDS). */
  warmFields?: readonly (readonly string[])[];
  /** Told when the thread ends unexpectedly. */
  onEnded?(err: Error): void;
}

/** The file the thread runs: the built module beside this one (under the test runner, this module's build). */
function workerUrl(): URL {
  const here = new URL(import.meta.url);
  if (here.pathname.endsWith('.ts')) return new URL(here.href.replace(/\/daemon\/history\/as-of-thread\.ts$/, '/dist/daemon/history/as-of-worker.js'));
  return new URL('./as-of-worker.js', here);
}

const stopped = (): AppError => new AppError('SERVICE_UNAVAILABLE', 'the as-of computation stopped before answering; try again');

/** A builder whose work runs on the as-of thread (started on first use). */
export function createAsOfThread(o: AsOfThreadOptions): AsOfBuilder & Pick<AsOfThread, 'thread'> {
  return new AsOfThread(o);
}

/** The daemon's side of the thread: its lifetime, the histories handed over, the builds awaiting an answer. */
class AsOfThread implements AsOfBuilder {
  private readonly budgetBytes: number;
  private worker: Worker | undefined;
  // The histories the running thread has (or is being sent: the last two, as the thread keeps
  // them, so a screen of the previous data version in flight during a load still finishes), and
  // the hand-overs in order.
  private readonly sent = new Map<MarketHistory, Promise<void>>();
  private sending: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, { resolve(b: BuiltColumns): void; reject(e: Error): void }>();
  private warm: { version: string; done: Promise<void>; resolve(): void } | undefined;
  private nextId = 1;
  private held = 0;
  private series: SeriesStats | undefined;
  private started: { tid: number; nice: number } | undefined;

  constructor(private readonly o: AsOfThreadOptions) {
    this.budgetBytes = Math.floor(o.memory.limit * AS_OF_THREAD_SHARE);
    // What the thread holds cannot be dropped from here: the daemon's own caches make room for it.
    o.memory.hold('as_of_thread', { bytes: () => this.held, oldest: () => undefined, dropOldest: () => undefined });
  }

  use(h: MarketHistory): Promise<void> {
    return this.handOver(h);
  }

  async columns(h: MarketHistory, day: number, depth: AsOfDepth, fields: readonly string[], dates: number): Promise<BuiltColumns> {
    await this.handOver(h);
    const w = this.worker;
    if (!w || !this.sent.has(h)) throw stopped();
    const id = this.nextId++;
    return new Promise<BuiltColumns>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ type: 'columns', id, version: h.version, day, depth, fields, dates } satisfies ToThread);
    });
  }

  async warmed(): Promise<void> {
    await this.warm?.done;
  }

  seriesStats(): SeriesStats | undefined {
    return this.series;
  }

  /** The running thread's id and nice value (Linux), once it has started. */
  thread(): { tid: number; nice: number } | undefined {
    return this.started;
  }

  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.ended(w, undefined);
    await w.terminate();
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const options: ThreadOptions = { budgetBytes: this.budgetBytes, lowerPriorityBy: AS_OF_THREAD_NICE, ...(this.o.warmFields ? { warmFields: this.o.warmFields } : {}) };
    const w = new Worker(workerUrl(), { workerData: options, resourceLimits: { maxOldGenerationSizeMb: AS_OF_THREAD_HEAP_MB } });
    // Idle, it must not keep the process alive; close() ends it on shutdown.
    w.unref();
    w.on('message', (m: FromThread) => this.onMessage(m));
    w.on('error', (err) => this.ended(w, err));
    w.on('exit', (code) => this.ended(w, code === 0 ? undefined : new Error(`the as-of thread exited with code ${code}`)));
    this.worker = w;
    return w;
  }

  /** Hand `h` to the thread unless it has it: after the hand-overs already under way, a slice at a time. */
  private handOver(h: MarketHistory): Promise<void> {
    const w = this.running();
    const already = this.sent.get(h);
    if (already) return already;
    let resolveWarm = (): void => undefined;
    const warmed = new Promise<void>((r) => (resolveWarm = r));
    this.warm = { version: h.version, done: warmed, resolve: resolveWarm };
    const done = this.sending.then(async () => {
      const post = (m: ToThread): void => w.postMessage(m);
      post({ type: 'history', version: h.version, dates: h.dates, index: h.index });
      for (let i = 0; i < h.stocks.length; i += STOCKS_PER_MESSAGE) {
        post({ type: 'stocks', version: h.version, stocks: h.stocks.slice(i, i + STOCKS_PER_MESSAGE) });
        await yieldToLoop();
      }
      post({ type: 'history-end', version: h.version });
    });
    this.sending = done.catch(() => undefined);
    this.sent.set(h, done);
    if (this.sent.size > HISTORIES_KEPT) this.sent.delete(this.sent.keys().next().value as MarketHistory);
    return done;
  }

  private onMessage(m: FromThread): void {
    if (m.type === 'started') {
      this.started = m.thread;
      return;
    }
    this.held = m.held;
    if (m.type !== 'failed' && m.series) this.series = m.series;
    this.o.memory.fit();
    if (m.type === 'warmed') {
      if (this.warm?.version === m.version) this.warm.resolve();
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.type === 'failed') p.reject(m.gone ? stopped() : new Error(m.message));
    else p.resolve({ listed: Array.from(m.listed), columns: new Map(m.names.map((n, i) => [n, m.arrays[i] as Float64Array])), fromSeries: m.fromSeries });
  }

  private ended(w: Worker, err: Error | undefined): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    this.started = undefined;
    this.sent.clear();
    this.held = 0;
    this.series = undefined;
    for (const p of this.pending.values()) p.reject(stopped());
    this.pending.clear();
    this.warm?.resolve();
    if (err) this.o.onEnded?.(err);
  }
}
