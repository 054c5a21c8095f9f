/** The ready line `stockscreend` prints once it serves (after the sample load). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceReady, readyLine } from '../../../daemon/ready-line.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

describe('ready line', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon('ready-line');
  });
  afterAll(() => t.close());

  it('names the URL, the stocks and bars served and the next command', () => {
    expect(readyLine('http://127.0.0.1:8000', 2702, 1_352_263, false)).toBe(
      'ready at http://127.0.0.1:8000 — 2,702 stocks, 1,352,263 bars; next: stockscreen register --email you@example.com',
    );
  });

  it('is printed by a running daemon with its own figures (an empty one says how to load data)', async () => {
    let out = '';
    const stream = { write: (s: string) => ((out += s), true), isTTY: false } as unknown as NodeJS.WriteStream;
    await announceReady(t.daemon, stream, new AbortController().signal);
    expect(out).toBe(`ready at ${t.url} — 0 stocks, 0 bars; next: stockscreen load sample (as an admin) or stockscreen load <files>\n`);
  });
});
