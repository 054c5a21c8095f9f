/**
 * The load generator's frame scanner reads the gateway's real frames (frame-encoder.ts):
 * message counts, every sequence number (gaps found exactly) and the sampled latencies
 * agree with parsing the same frames as JSON.
 */
import { describe, expect, it } from 'vitest';
import type { PriceEvent } from '../../../../daemon/kernel/events.js';
import { encodeFrame, FRAME_HEADER_ROOM } from '../../../../daemon/ws/frame-encoder.js';
import { serverMessages, type OutMessage } from '../../../../daemon/ws/protocol.js';
import { createFrameScanner, type ScanState } from '../../../../loadtest/ws/frame-scan.js';

const T = Date.parse('2026-11-20T01:59:58.250Z');
const price = (i: number): OutMessage =>
  serverMessages.priceUpdate({ type: 'price', code: String(i).padStart(6, '0'), name: '삼성전자 "우"', market: 'KOSPI', sector: null, price: 100 + i, change: 1, change_percent: 0.5, volume: 9, trading_value: 9, open: 1, high: 1, low: 1, prev_close: 1, ts: T + i * 1000 } satisfies PriceEvent);
const payload = (chunk: OutMessage[], first: number, batch: boolean) => encodeFrame(chunk, first, batch, T).subarray(FRAME_HEADER_ROOM);

/** The same figures by parsing: sequences in reading order and data-message timestamps. */
function parsed(frames: Buffer[]): { seqs: number[]; stamps: number[] } {
  const seqs: number[] = [];
  const stamps: number[] = [];
  for (const f of frames) {
    const m = JSON.parse(f.toString('utf8')) as { sequence: number; timestamp: string; messages?: { sequence: number; timestamp: string }[] };
    for (const x of m.messages ? [m, ...m.messages] : [m]) {
      seqs.push(x.sequence);
      if (x !== m || !m.messages) stamps.push(Date.parse(x.timestamp));
    }
  }
  return { seqs, stamps };
}

describe('frame scanner', () => {
  it('counts data messages, follows sequences across frames and samples latencies as parsing would', () => {
    const frames = [payload([price(0)], 1, false), payload([price(1), price(2), price(3)], 2, true), payload([price(4)], 6, false), payload([price(5), price(6)], 7, true)];
    const scanner = createFrameScanner(1);
    const state: ScanState = { seq: 0, gaps: 0, missing: 0 };
    const latencies: number[] = [];
    const now = T + 100_000;
    const counts = frames.map((f) => (expect(scanner.scannable(f)).toBe(true), scanner.scan(f, now, state, (ms) => latencies.push(ms))));
    const truth = parsed(frames);
    expect(counts).toEqual([1, 3, 1, 2]);
    expect(state).toEqual({ seq: truth.seqs.at(-1), gaps: 0, missing: 0 });
    expect(latencies).toEqual(truth.stamps.map((ts) => now - ts));
  });

  it('finds each gap and how many messages it skipped, inside batches too', () => {
    const frames = [payload([price(0)], 1, false), payload([price(1), price(2)], 5, true), payload([price(3)], 8, false)];
    const state: ScanState = { seq: 0, gaps: 0, missing: 0 };
    for (const f of frames) createFrameScanner(1).scan(f, T, state, () => undefined);
    // 1, [5, 6, 7], 8: one gap of 3 (2, 3, 4).
    expect(state).toEqual({ seq: 8, gaps: 1, missing: 3 });
  });

  it('samples one message in N and leaves frames with other message types to the parser', () => {
    const scanner = createFrameScanner(3);
    const state: ScanState = { seq: 0, gaps: 0, missing: 0 };
    let samples = 0;
    scanner.scan(payload(Array.from({ length: 9 }, (_, i) => price(i)), 1, true), T, state, () => samples++);
    expect(samples).toBe(3);
    const mixed = payload([price(1), serverMessages.pong(T)], 11, true);
    expect(scanner.scan(mixed, T, state, () => undefined)).toBe(-1);
    expect(state.seq).toBe(10);
    expect(scanner.scannable(payload([serverMessages.subscribed('stock', ['005930'], T)], 1, false))).toBe(false);
  });
});
