/**
 * Frame bytes from shared message bytes (serialize once).
 *
 * A server message is JSON text built once per event (protocol.ts `OutMessage.head`); its
 * UTF-8 bytes followed by `,"sequence":` are encoded once, by the first connection that
 * sends it, and cached on the message (`OutMessage.encoded`). A frame is then one buffer
 * assembled by copying those bytes and writing each message's sequence digits and `}`
 * between them: no per-recipient JSON or string building. The bytes are exactly those of
 * protocol.ts `finalize` / `batchFrame` (the golden test holds them equal).
 *
 * The buffer starts with FRAME_HEADER_ROOM spare bytes, so the WebSocket frame header can
 * be written in front of the payload without another allocation or copy (`wsTextFrame`).
 */
import { batchPrefix, type OutMessage } from './protocol.js';

/** Bytes reserved in front of every encoded payload for the WebSocket frame header (at most 10). */
export const FRAME_HEADER_ROOM = 10;

const CLOSE = 0x7d; // }
const COMMA = 0x2c; // ,
const SUFFIX = Buffer.from(']}', 'latin1');

/** The shared bytes of a message (`head` + `,"sequence":`), encoded on first use. */
export function messageBytes(m: OutMessage): Buffer {
  return (m.encoded ??= Buffer.from(`${m.head},"sequence":`, 'utf8'));
}

function digitCount(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/** Write the decimal digits of `n` (a non-negative integer) at `at`; returns the offset after them. */
function writeDigits(buf: Buffer, at: number, n: number): number {
  const end = at + digitCount(n);
  let i = end;
  do {
    buf[--i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  return end;
}

/**
 * One frame's payload, after FRAME_HEADER_ROOM spare bytes: a single message numbered
 * `firstSequence`, or (`batch`) a batch frame numbered `firstSequence` whose inner messages
 * take the following numbers (protocol.ts, sequence rule).
 */
export function encodeFrame(chunk: readonly OutMessage[], firstSequence: number, batch: boolean, nowMs: number): Buffer {
  const prefix = batch ? batchPrefix(firstSequence, chunk.length, nowMs) : '';
  let seq = batch ? firstSequence + 1 : firstSequence;
  let size = FRAME_HEADER_ROOM + prefix.length + (batch ? chunk.length - 1 + SUFFIX.length : 0);
  for (let i = 0; i < chunk.length; i++) size += messageBytes(chunk[i]!).length + digitCount(seq + i) + 1;
  const buf = Buffer.allocUnsafe(size);
  let at = FRAME_HEADER_ROOM + (prefix ? buf.write(prefix, FRAME_HEADER_ROOM, 'latin1') : 0);
  for (let i = 0; i < chunk.length; i++) {
    if (i > 0) buf[at++] = COMMA;
    at += messageBytes(chunk[i]!).copy(buf, at);
    at = writeDigits(buf, at, seq++);
    buf[at++] = CLOSE;
  }
  if (batch) at += SUFFIX.copy(buf, at);
  return buf;
}

/**
 * Write the header of a final, unmasked server frame in front of the payload held after
 * FRAME_HEADER_ROOM bytes of `buf` (text opcode; RSV1 set when the payload is
 * permessage-deflate compressed) and return the frame (a view of `buf`).
 */
export function wsTextFrame(buf: Buffer, compressed = false): Buffer {
  const length = buf.length - FRAME_HEADER_ROOM;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const start = FRAME_HEADER_ROOM - headerLength;
  buf[start] = 0x81 | (compressed ? 0x40 : 0);
  if (headerLength === 2) buf[start + 1] = length;
  else if (headerLength === 4) {
    buf[start + 1] = 126;
    buf.writeUInt16BE(length, start + 2);
  } else {
    buf[start + 1] = 127;
    buf.writeUInt32BE(Math.floor(length / 2 ** 32), start + 2);
    buf.writeUInt32BE(length >>> 0, start + 6);
  }
  return buf.subarray(start);
}
