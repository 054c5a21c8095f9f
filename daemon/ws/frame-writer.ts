/**
 * Writing pre-encoded frames to a `ws` socket.
 *
 * `ws.send(text)` measures, encodes and frames the text again for every recipient. The
 * gateway's frames are already bytes (frame-encoder.ts), so it writes them, header
 * included, straight to the socket through the connection's `Sender.sendFrame` (ws 8
 * internals: `_sender`, its `_state` and `sendFrame`). While the sender is busy (ws is
 * compressing or reading a blob for an earlier message; never the case when all data
 * frames come from here), the frame goes through `ws.send` instead, which queues it behind
 * that work, so frames keep their order. `createFrameWriter` returns a writer that always
 * uses `ws.send` when the internals do not have the expected shape (the gateway tests
 * assert the direct path is installed).
 *
 * Frames that permessage-deflate would compress (negotiated, payload at or above its
 * `threshold`) still go through `ws.send`, hence through the shared deflate pool
 * (deflate-pool.ts).
 *
 * Bytes written this way count in `ws.bufferedAmount` (the socket's writable length), so
 * back-pressure by bufferedAmount works unchanged.
 */
import type { WebSocket } from 'ws';
import { FRAME_HEADER_ROOM, wsTextFrame } from './frame-encoder.js';

/** Sends encoded payloads (FRAME_HEADER_ROOM spare bytes, then the payload) as text frames. */
export interface FrameWriter {
  /** True when frames are written to the socket directly (ws internals as expected). */
  readonly direct: boolean;
  /** Send one encoded payload as a final text frame. */
  write(encoded: Buffer): void;
}

/** The parts of ws's Sender this module touches. */
interface SenderInternals {
  _state: number;
  sendFrame(list: Buffer[], cb?: (err?: Error) => void): void;
}

const DEFAULT_STATE = 0;

/** A writer for `ws` (direct when its sender has the expected shape). */
export function createFrameWriter(ws: WebSocket): FrameWriter {
  const sender = (ws as unknown as { _sender?: SenderInternals })._sender;
  const direct = !!sender && typeof sender.sendFrame === 'function' && sender._state === DEFAULT_STATE;
  const viaWs = (encoded: Buffer) => ws.send(encoded.subarray(FRAME_HEADER_ROOM), { binary: false });
  if (!direct) return { direct, write: viaWs };
  const deflate = (ws as unknown as { _extensions?: Record<string, { _threshold?: number }> })._extensions?.['permessage-deflate'];
  const compressFrom = deflate ? (deflate._threshold ?? 1024) + FRAME_HEADER_ROOM : Infinity;
  return {
    direct,
    write(encoded) {
      if (sender._state !== DEFAULT_STATE || encoded.length >= compressFrom) return viaWs(encoded);
      sender.sendFrame([wsTextFrame(encoded)]);
    },
  };
}
