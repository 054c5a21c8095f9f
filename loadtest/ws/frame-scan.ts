/**
 * Reading the gateway's frames without parsing them (the load generator must
 * cost less than the server it measures). Every server message starts with `"type":"…"`
 * and ends with its `"sequence":N` (a batch frame carries its own right after its type,
 * before its inner messages), so walking the text for those two keys gives every sequence
 * number in reading order: the gap check stays exact. A data message's timestamp (the
 * tick's time) is the field just before its sequence; it is read on one message in
 * `sampleEvery`, its ISO text turned into ms with the minute part cached.
 *
 * `createFrameScanner` is self-contained on purpose (no imports or module-level
 * references): the load worker evaluates its source text (client-pool.ts).
 */

/** Sequence state of one client, carried from frame to frame. */
export interface ScanState {
  /** Last sequence number read (0: none yet). */
  seq: number;
  gaps: number;
  /** Sequence numbers skipped over by the gaps. */
  missing: number;
}

/** A frame reader. */
export interface FrameScanner {
  /** Whether a frame of this first type can be scanned (data frames, batches). */
  scannable(raw: Buffer): boolean;
  /**
   * Walk a frame: advance `state` over its sequences and call `onLatency(ms)` for sampled
   * messages; returns the number of data messages (the batch frame itself not counted), or
   * -1 with `state` untouched when it holds a message of another type (parse it instead).
   */
  scan(raw: Buffer, nowMs: number, state: ScanState, onLatency: (ms: number) => void): number;
}

/** Create a scanner sampling the latency of one data message in `sampleEvery`. */
export function createFrameScanner(sampleEvery: number): FrameScanner {
  const DATA = new Set(['price_update', 'orderbook_update', 'market_status']);
  const TYPE = Buffer.from('"type":"');
  const SEQUENCE = Buffer.from('"sequence":');
  let counter = 0;
  let minuteText = '';
  let minuteMs = 0;

  const typeAt = (raw: Buffer, from: number): [string, number] => {
    const end = raw.indexOf(0x22, from);
    return [end > from && end - from < 32 ? raw.toString('latin1', from, end) : '', end];
  };

  /** ms of the ISO text `YYYY-MM-DDTHH:MM:SS.mmmZ` whose closing quote is at `end`; NaN if it is not one. */
  const isoMs = (raw: Buffer, end: number): number => {
    if (end < 25 || raw[end] !== 0x22 || raw[end - 1] !== 0x5a || raw[end - 25] !== 0x22) return NaN;
    const minute = raw.toString('latin1', end - 24, end - 8);
    if (minute !== minuteText) {
      minuteText = minute;
      minuteMs = Date.parse(`${minute}:00.000Z`);
    }
    const d = (i: number) => raw[end - 24 + i]! - 0x30;
    return minuteMs + (d(17) * 10 + d(18)) * 1000 + d(20) * 100 + d(21) * 10 + d(22);
  };

  return {
    scannable(raw) {
      const type = typeAt(raw, 9)[0];
      return type === 'batch' || DATA.has(type);
    },
    scan(raw, nowMs, state, onLatency) {
      let { seq: last, gaps, missing } = state;
      let at = 0;
      let counted = 0;
      const samples: number[] = [];
      for (let t = raw.indexOf(TYPE, at); t >= 0; t = raw.indexOf(TYPE, at)) {
        const [type, typeEnd] = typeAt(raw, t + TYPE.length);
        const s = raw.indexOf(SEQUENCE, typeEnd);
        if (s < 0 || (type !== 'batch' && !DATA.has(type))) return -1;
        let seq = 0;
        let i = s + SEQUENCE.length;
        for (let c = raw[i]!; c >= 0x30 && c <= 0x39; c = raw[++i]!) seq = seq * 10 + (c - 0x30);
        if (last > 0 && seq !== last + 1) {
          gaps++;
          missing += Math.max(0, seq - last - 1);
        }
        last = seq;
        if (type !== 'batch') {
          counted++;
          if (++counter % sampleEvery === 0) {
            const ts = isoMs(raw, s - 2);
            if (!Number.isNaN(ts)) samples.push(nowMs - ts);
          }
        }
        at = i;
      }
      state.seq = last;
      state.gaps = gaps;
      state.missing = missing;
      for (const ms of samples) onLatency(ms);
      return counted;
    },
  };
}
