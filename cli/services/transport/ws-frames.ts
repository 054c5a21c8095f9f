/**
 * Reading the gateway's frames: the unwrapping of `batch` frames into their
 * inner messages, and the sequence check. The message shapes are the wire contract's
 * (daemon/contract/ws.ts).
 *
 * Sequence rule (daemon/ws/protocol.ts): every server message of a session takes the
 * next number; a `batch` frame takes its number before its inner messages, so walking
 * frames and their inner messages in reading order must give n, n+1, n+2, … A new
 * session (`connected`) starts its own numbering; a restored one (`reconnected`)
 * continues the old one. Pure: no sockets.
 */
import type { ReceivedMessage } from '../../../daemon/contract/ws.js';

/** A frame and the messages it carries (the inner messages of a batch, else the frame itself). */
export interface ParsedFrame {
  frame: ReceivedMessage;
  messages: ReceivedMessage[];
}

function isMessage(value: unknown): value is ReceivedMessage {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string';
}

/**
 * Parse one frame's text and unwrap a batch.
 * @throws Error when the text is not JSON or not a message object (or a batch holds one that is not)
 */
export function parseFrame(text: string): ParsedFrame {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    throw new Error(`frame is not JSON: ${text.slice(0, 80)}`);
  }
  if (!isMessage(frame)) throw new Error(`frame is not a message object: ${text.slice(0, 80)}`);
  if (frame.type !== 'batch') return { frame, messages: [frame] };
  const inner = frame.messages;
  if (!Array.isArray(inner) || !inner.every(isMessage)) throw new Error('batch frame without a list of messages');
  return { frame, messages: inner };
}

/** Something wrong with the numbering. */
export interface SequenceAnomaly {
  /** `gap`: numbers were skipped (messages lost); `repeat`: a number at or below the last one. */
  kind: 'gap' | 'repeat';
  expected: number;
  got: number;
}

/** Checks sequence numbers across frames. */
export interface SequenceTracker {
  /** Check a frame (and its inner messages, in reading order); returns what was wrong. */
  observe(parsed: ParsedFrame): SequenceAnomaly[];
  /** Last sequence number seen, if any. */
  last(): number | undefined;
}

/** Create a tracker; it starts at the first number it sees and restarts at every `connected`. */
export function createSequenceTracker(): SequenceTracker {
  let last: number | undefined;
  const check = (m: ReceivedMessage, anomalies: SequenceAnomaly[]) => {
    const seq = m.sequence;
    if (typeof seq !== 'number') return;
    if (last === undefined || m.type === 'connected') {
      last = seq;
      return;
    }
    if (seq !== last + 1) anomalies.push({ kind: seq > last ? 'gap' : 'repeat', expected: last + 1, got: seq });
    last = Math.max(last, seq);
  };
  return {
    observe(parsed) {
      const anomalies: SequenceAnomaly[] = [];
      check(parsed.frame, anomalies);
      if (parsed.frame.type === 'batch') for (const m of parsed.messages) check(m, anomalies);
      return anomalies;
    },
    last: () => last,
  };
}
