/**
 * Per-message deflate without a zlib context per connection.
 *
 * `ws` keeps one DeflateRaw per connection for its whole life. Node's bundled zlib
 * (Chromium's) sizes the hash table at 2^15 entries whatever memLevel says, so a used
 * context holds ~87 KB — measured 130 KB RSS per connection with deflate against 21 KB
 * without, above the 100 KB target. Because the gateway negotiates
 * `server_no_context_takeover`, every message is compressed on its own, so any reset
 * context can compress any connection's message: a small shared pool serves them all.
 * Likewise with `client_no_context_takeover` a connection's inflater is released after
 * each client message instead of being kept (a browser compresses every message).
 *
 * This replaces the `compress` / wraps the `decompress` method of the connection's
 * negotiated `PerMessageDeflate` object, reached through `ws`'s `_extensions` field
 * (ws 8 internals; `installPooledDeflate` returns false and leaves ws alone when the
 * shape is not the expected one, and the gateway tests assert it is installed).
 */
import { constants, createDeflateRaw, type DeflateRaw } from 'node:zlib';
import type { WebSocket } from 'ws';

/** Settings of the shared deflate contexts (must match the negotiated server_max_window_bits). */
export interface DeflatePoolOptions {
  /** Contexts at most; more concurrent messages wait in a queue. */
  size: number;
  windowBits: number;
  memLevel: number;
  level: number;
}

/** One pool per negotiated window size (server_max_window_bits, 15 when not negotiated). */
export interface DeflatePools {
  forWindow(windowBits: number): DeflatePool;
  stats(): { contexts: number; busy: number; queued: number };
  close(): void;
}

/** Create the pools lazily, one per window size seen. */
export function createDeflatePools(options: Omit<DeflatePoolOptions, 'windowBits'>): DeflatePools {
  const pools = new Map<number, DeflatePool>();
  return {
    forWindow(windowBits) {
      let pool = pools.get(windowBits);
      if (!pool) pools.set(windowBits, (pool = createDeflatePool({ ...options, windowBits })));
      return pool;
    },
    stats() {
      const total = { contexts: 0, busy: 0, queued: 0 };
      for (const pool of pools.values()) {
        const s = pool.stats();
        total.contexts += s.contexts;
        total.busy += s.busy;
        total.queued += s.queued;
      }
      return total;
    },
    close() {
      for (const pool of pools.values()) pool.close();
    },
  };
}

/** A shared pool of raw-deflate contexts. */
export interface DeflatePool {
  readonly windowBits: number;
  /** Compress one whole message as permessage-deflate wants it: sync-flushed, trailing 00 00 ff ff removed. */
  compress(data: Buffer | string, callback: (err: Error | null, result?: Buffer) => void): void;
  stats(): { contexts: number; busy: number; queued: number };
  close(): void;
}

interface Context {
  deflate: DeflateRaw;
  chunks: Buffer[];
  length: number;
  failed: Error | null;
}

type Job = { data: Buffer | string; callback: (err: Error | null, result?: Buffer) => void };

/** Create the pool (contexts are created on demand, up to `size`). */
export function createDeflatePool(options: DeflatePoolOptions): DeflatePool {
  const idle: Context[] = [];
  const queue: Job[] = [];
  let contexts = 0;
  let busy = 0;
  let closed = false;

  function createContext(): Context {
    const ctx: Context = {
      deflate: createDeflateRaw({ windowBits: options.windowBits, memLevel: options.memLevel, level: options.level, chunkSize: 4096 }),
      chunks: [],
      length: 0,
      failed: null,
    };
    ctx.deflate.on('data', (chunk: Buffer) => {
      ctx.chunks.push(chunk);
      ctx.length += chunk.length;
    });
    ctx.deflate.on('error', (err: Error) => void (ctx.failed = err));
    contexts++;
    return ctx;
  }

  function release(ctx: Context): void {
    busy--;
    if (ctx.failed || closed) {
      contexts--;
      ctx.deflate.close();
    } else {
      ctx.deflate.reset();
      idle.push(ctx);
    }
    const next = queue.shift();
    if (next) run(next);
  }

  function run(job: Job): void {
    const ctx = idle.pop() ?? createContext();
    busy++;
    ctx.chunks = [];
    ctx.length = 0;
    ctx.deflate.write(job.data);
    ctx.deflate.flush(constants.Z_SYNC_FLUSH, () => {
      const err = ctx.failed;
      const out = err ? undefined : Buffer.concat(ctx.chunks, ctx.length).subarray(0, Math.max(0, ctx.length - 4));
      ctx.chunks = [];
      release(ctx);
      job.callback(err, out);
    });
  }

  return {
    windowBits: options.windowBits,
    compress(data, callback) {
      if (closed) return callback(new Error('deflate pool closed'));
      if (idle.length > 0 || contexts < options.size) run({ data, callback });
      else queue.push({ data, callback });
    },
    stats: () => ({ contexts, busy, queued: queue.length }),
    close() {
      closed = true;
      for (const ctx of idle.splice(0)) ctx.deflate.close();
      contexts = busy;
      for (const job of queue.splice(0)) job.callback(new Error('deflate pool closed'));
    },
  };
}

/** The parts of ws's PerMessageDeflate object this module touches. */
interface NegotiatedDeflate {
  params: Record<string, unknown>;
  _inflate: { close(): void } | null;
  compress(data: Buffer | string, fin: boolean, callback: (err: Error | null, result?: Buffer) => void): void;
  decompress(data: Buffer, fin: boolean, callback: (err: Error | null, result?: Buffer) => void): void;
}

/**
 * Route a server connection's compression through the pool of its negotiated window size
 * and release its inflater after each message. Returns false (and changes nothing) when
 * deflate was not negotiated without context takeover, or ws's internals differ.
 */
export function installPooledDeflate(ws: WebSocket, pools: DeflatePools): boolean {
  const ext = (ws as unknown as { _extensions?: Record<string, NegotiatedDeflate> })._extensions?.['permessage-deflate'];
  if (!ext || typeof ext.compress !== 'function' || typeof ext.decompress !== 'function' || !ext.params) return false;
  const { params } = ext;
  if (params.server_no_context_takeover !== true) return false;
  const bits = params.server_max_window_bits;
  const pool = pools.forWindow(typeof bits === 'number' ? bits : constants.Z_DEFAULT_WINDOWBITS);
  const fallback = ext.compress.bind(ext);
  ext.compress = (data, fin, callback) => (fin ? pool.compress(data, callback) : fallback(data, fin, callback));
  if (params.client_no_context_takeover === true) {
    const decompress = ext.decompress.bind(ext);
    ext.decompress = (data, fin, callback) =>
      decompress(data, fin, (err, result) => {
        if (fin && ext._inflate) {
          ext._inflate.close();
          ext._inflate = null;
        }
        callback(err, result);
      });
  }
  return true;
}
