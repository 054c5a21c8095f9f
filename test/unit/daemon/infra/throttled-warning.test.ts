import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../daemon/infra/logger.js';
import { throttledWarning } from '../../../../daemon/infra/throttled-warning.js';

describe('throttledWarning', () => {
  it('logs the first failure, then one line per interval with the number suppressed', () => {
    // Given a warning throttled to one per 30 s on a hand-driven clock
    const lines: { err: string; suppressed: number; msg: string }[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(JSON.parse(line)) });
    let now = 1_000_000;
    const warn = throttledWarning(logger, 'redis unavailable', 30_000, () => now);
    // When it fires 5 times within 10 s, then once 30 s after the first
    for (let i = 0; i < 5; i++, now += 2_000) warn(`down ${i}`);
    now = 1_000_000 + 30_000;
    warn('still down');
    // Then two lines were logged: the first failure, and a summary counting the 4 in between
    expect(lines.map((l) => [l.msg, l.err, l.suppressed])).toEqual([
      ['redis unavailable', 'down 0', 0],
      ['redis unavailable', 'still down', 4],
    ]);
  });
});
