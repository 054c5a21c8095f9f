/**
 * Per-connection outbound queue ("outbox") and the one flush timer shared by all
 * connections (the spec: batching on by default, flushed every 30 ms).
 *
 * A flush sends the queue as one `batch` frame (a single message goes unwrapped, and
 * frames hold at most `maxBatchSize` messages). Sequence numbers are assigned here, at
 * flush time, in delivery order (see protocol.ts for the batch-frame rule); the sink turns
 * a chunk and its first number into bytes (frame-encoder.ts), so nothing here builds text.
 *
 * Slow consumers: when the socket's send buffer is above `highWaterBytes` the flush is
 * skipped and the queue is coalesced — the latest price / order book per code and the
 * latest status per market replace older ones in place — so the queue is bounded by
 * the number of distinct keys plus the non-coalescible messages. A consumer still behind
 * after `maxBehindFlushes` flushes, or whose queue passes `maxQueue`, is reported
 * through `onOverflow` (the connection closes it with 4008).
 */
import { compareStreamIds } from '../market/bus.js';
import type { OutMessage } from './protocol.js';

/** Tuning of an outbox. */
export interface OutboxOptions {
  /** False: every message is sent on its own, immediately. */
  batching: boolean;
  highWaterBytes: number;
  maxBehindFlushes: number;
  maxQueue: number;
  maxBatchSize: number;
  /** Approximate size limit of one batch frame (a single larger message is still sent). */
  maxFrameBytes: number;
}

// `,"sequence":NNNNNNN}` plus the comma between inner messages.
const SEQUENCE_BYTES = 24;

/** Where an outbox sends, and who it tells. */
export interface OutboxSink {
  /**
   * Send one frame: `chunk` alone (one message, numbered `firstSequence`) or, when `batch`,
   * a batch frame numbered `firstSequence` whose inner messages take the next numbers.
   */
  sendFrame(chunk: readonly OutMessage[], firstSequence: number, batch: boolean): void;
  bufferedAmount(): number;
  /** Ask for a flush on the next tick. */
  schedule(outbox: Outbox): void;
  /** Delivered `messages` in `frames` frames; `oldestBuiltAt` is the performance.now() of the oldest. */
  onSent(messages: number, frames: number, oldestBuiltAt: number): void;
  /** An alert message was handed to the socket (the session's alert cursor advances). */
  onAlertSent?(ref: NonNullable<OutMessage['alert']>): void;
  /** The consumer cannot keep up; the owner should close the connection. */
  onOverflow(reason: string, details: { queued: number; buffered_bytes: number; behind_flushes: number }): void;
}

/** A connection's outbound queue. */
export interface Outbox {
  push(message: OutMessage): void;
  /** Put messages in front of the queue (restoration: `reconnected` and the replay go before held live messages). */
  unshift(messages: readonly OutMessage[]): void;
  flush(): void;
  /** Hold messages (no flush) until resume(). */
  pause(): void;
  resume(): void;
  size(): number;
  /** Last sequence number assigned (settable when a session is restored). */
  sequence: number;
  /** Smallest stream id among queued event messages (not delivered yet). */
  oldestQueuedStreamId(): string | undefined;
  /** Drop everything; later pushes are ignored. */
  dispose(): void;
}

/** Create an outbox sending through `sink`. */
export function createOutbox(sink: OutboxSink, options: OutboxOptions): Outbox {
  return new QueuedOutbox(sink, options);
}

/** The queue of one connection, its coalescing index while behind, and its sequence counter. */
class QueuedOutbox implements Outbox {
  sequence = 0;
  private queue: OutMessage[] = [];
  private keyIndex: Map<string, number> | null = null; // non-null while coalescing
  private behind = 0;
  private paused = false;
  private disposed = false;

  constructor(
    private readonly sink: OutboxSink,
    private readonly options: OutboxOptions,
  ) {}

  push(message: OutMessage): void {
    if (this.disposed) return;
    const { keyIndex, queue, options } = this;
    const at = keyIndex && message.key !== undefined ? keyIndex.get(message.key) : undefined;
    if (at !== undefined) queue[at] = message;
    else {
      if (keyIndex && message.key !== undefined) keyIndex.set(message.key, queue.length);
      queue.push(message);
    }
    if (queue.length > options.maxQueue) {
      if (!this.keyIndex) this.coalesce();
      if (this.queue.length > options.maxQueue) return this.overflow('queue limit');
    }
    if (!options.batching && !this.paused && !this.keyIndex) this.flush();
    else this.sink.schedule(this);
  }

  unshift(messages: readonly OutMessage[]): void {
    if (this.disposed || messages.length === 0) return;
    this.queue = [...messages, ...this.queue];
    if (this.keyIndex) this.coalesce();
    this.sink.schedule(this);
  }

  flush(): void {
    if (this.disposed || this.paused || this.queue.length === 0) return;
    const { sink, options } = this;
    if (sink.bufferedAmount() >= options.highWaterBytes) {
      this.behind++;
      if (!this.keyIndex) this.coalesce();
      if (this.behind > options.maxBehindFlushes) return this.overflow('slow consumer');
      sink.schedule(this);
      return;
    }
    this.behind = 0;
    this.keyIndex = null;
    // Never put more than the threshold into the socket buffer: what does not fit waits (and coalesces).
    this.sendWithin(options.highWaterBytes - sink.bufferedAmount());
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    if (this.queue.length > 0) this.sink.schedule(this);
  }

  size(): number {
    return this.queue.length;
  }

  oldestQueuedStreamId(): string | undefined {
    let oldest: string | undefined;
    for (const m of this.queue) if (m.streamId !== undefined && (oldest === undefined || compareStreamIds(m.streamId, oldest) < 0)) oldest = m.streamId;
    return oldest;
  }

  dispose(): void {
    this.disposed = true;
    this.queue = [];
    this.keyIndex = null;
  }

  /** Keep the latest message per key, in the place of the first (the index then keeps doing so for pushes). */
  private coalesce(): void {
    const keyIndex = (this.keyIndex = new Map());
    const kept: OutMessage[] = [];
    for (const m of this.queue) {
      const at = m.key === undefined ? undefined : keyIndex.get(m.key);
      if (at !== undefined) kept[at] = m;
      else {
        if (m.key !== undefined) keyIndex.set(m.key, kept.length);
        kept.push(m);
      }
    }
    this.queue = kept;
  }

  private overflow(reason: string): void {
    this.sink.onOverflow(reason, { queued: this.queue.length, buffered_bytes: this.sink.bufferedAmount(), behind_flushes: this.behind });
  }

  /** Messages [start, end) forming the next frame: up to maxBatchSize messages and about maxFrameBytes. */
  private chunkEnd(start: number): { end: number; bytes: number } {
    const { queue, options } = this;
    let end = start;
    let bytes = 0;
    const maxMessages = options.batching ? options.maxBatchSize : 1;
    while (end < queue.length && end - start < maxMessages) {
      const size = queue[end]!.head.length + SEQUENCE_BYTES;
      if (end > start && bytes + size > options.maxFrameBytes) break;
      bytes += size;
      end++;
    }
    return { end, bytes };
  }

  private sendFrame(chunk: OutMessage[]): void {
    const { sink } = this;
    if (!this.options.batching || chunk.length === 1) {
      if (chunk.length === 1) sink.sendFrame(chunk, ++this.sequence, false);
      else for (const m of chunk) sink.sendFrame([m], ++this.sequence, false);
    } else {
      const first = this.sequence + 1;
      this.sequence += chunk.length + 1;
      sink.sendFrame(chunk, first, true);
    }
    if (sink.onAlertSent) for (const m of chunk) if (m.alert) sink.onAlertSent(m.alert);
  }

  /** Send from the head of the queue until it is empty or `budget` bytes went out; the rest waits. */
  private sendWithin(budget: number): void {
    // `this.queue` is read afresh after every frame: the sink may dispose of the outbox meanwhile.
    let start = 0;
    let frames = 0;
    let oldest = Infinity;
    while (start < this.queue.length && budget > 0) {
      const { end, bytes } = this.chunkEnd(start);
      const queue = this.queue;
      // The whole queue in one frame (the usual case) needs no copy: it is replaced below.
      const chunk = start === 0 && end === queue.length ? queue : queue.slice(start, end);
      for (const m of chunk) oldest = Math.min(oldest, m.builtAt);
      this.sendFrame(chunk);
      frames += this.options.batching ? 1 : chunk.length;
      budget -= bytes;
      start = end;
    }
    this.queue = start === this.queue.length ? [] : this.queue.slice(start);
    if (start > 0) this.sink.onSent(start, frames, oldest);
    if (this.queue.length > 0) this.sink.schedule(this);
  }
}

/** One timer that flushes every outbox marked dirty, `intervalMs` after the first mark. */
export interface FlushScheduler {
  schedule(outbox: Outbox): void;
  /** Flush everything now (shutdown). */
  flushAll(): void;
  stop(): void;
}

/** Create the shared flush timer. */
export function createFlushScheduler(intervalMs: number): FlushScheduler {
  let dirty = new Set<Outbox>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function tick(): void {
    timer = undefined;
    const due = dirty;
    dirty = new Set();
    for (const outbox of due) outbox.flush();
  }

  return {
    schedule(outbox) {
      if (stopped) return;
      dirty.add(outbox);
      timer ??= setTimeout(tick, intervalMs);
    },
    flushAll() {
      if (timer) clearTimeout(timer);
      tick();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      dirty.clear();
    },
  };
}
