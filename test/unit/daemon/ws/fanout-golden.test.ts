/**
 * Golden test of the fan-out send path: the frames every connection receives for
 * a recorded tick sequence (stock, market and sector subscriptions, one consumer coalescing
 * behind its high-water mark) are byte-identical to those recorded from the send path
 * before serialize-once / compress-once, and sequences are contiguous per connection.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MarketEvent } from '../../../../daemon/kernel/events.js';
import { encodeFrame, FRAME_HEADER_ROOM } from '../../../../daemon/ws/frame-encoder.js';
import { GOLDEN_MEMBERS, roundClock, runScenario } from './fanout-golden.js';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/ws/fanout-golden.json');
const golden = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { ticks: MarketEvent[][]; frames: Record<string, string[]> };

function replay(): Record<string, string[]> {
  const frames: Record<string, string[]> = {};
  runScenario(golden.ticks, (m, state) => {
    const sent: string[] = (frames[m.name] = []);
    return {
      sendFrame: (chunk, first, batch) => void sent.push(encodeFrame(chunk, first, batch, roundClock(state.round)).subarray(FRAME_HEADER_ROOM).toString('utf8')),
      bufferedAmount: () => (m.behindRounds.includes(state.round) ? 10_000 : 0),
      schedule: () => undefined,
      onSent: () => undefined,
      onOverflow: (reason) => {
        throw new Error(reason);
      },
    };
  });
  return frames;
}

/** Sequence numbers in reading order (a batch frame before its inner messages). */
function sequences(frames: string[]): number[] {
  return frames.flatMap((f) => {
    const m = JSON.parse(f) as { sequence: number; messages?: { sequence: number }[] };
    return [m.sequence, ...(m.messages ?? []).map((i) => i.sequence)];
  });
}

describe('fan-out golden frames', () => {
  const frames = replay();

  it.each(GOLDEN_MEMBERS.map((m) => m.name))('%s gets the recorded frames byte for byte', (name) => {
    expect(frames[name]).toEqual(golden.frames[name]);
  });

  it('numbers every connection contiguously from 1', () => {
    for (const name of Object.keys(golden.frames)) {
      const seq = sequences(frames[name]!);
      expect(seq).toEqual(seq.map((_, i) => i + 1));
    }
  });

  it('coalesces the consumer that is behind: fewer messages, the latest price per code kept', () => {
    const count = (name: string) => sequences(frames[name]!).length;
    expect(count('slow-market')).toBeLessThan(count('market'));
  });
});
