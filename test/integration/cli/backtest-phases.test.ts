/**
 * `stockscreen backtest` on a daemon that has not read the market history yet: the progress on
 * stderr starts with what the run is doing (reading the market history) instead of nothing
 * until the first date, then the bar, ending with every rebalance done. Piped output: one line
 * per change, in the order the run went through them.
 */
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { tradingDaysBetween } from '../../../daemon/kernel/krx-calendar.js';
import { applyGeneratedMarket } from '../../helpers/backtest-market.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';

const USER = { email: 'phases@example.com', password: 'correct horse battery' };
const DATES = tradingDaysBetween('2025-01-02', '2025-04-30');

describe('stockscreen backtest shows its phases', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });

  beforeAll(async () => {
    // Given a daemon whose history is not read yet and that never waits for it before answering
    t = await startTestDaemon('cli-backtest-phases', { backtest_plan_wait_ms: 0 });
    await applyGeneratedMarket(t.daemon, DATES);
    e = await tempEnv();
    expect((await cli(['register', '--email', USER.email, '--password-stdin'], fakeIO({ stdin: USER.password }))).code).toBe(0);
    expect((await cli(['login', '--email', USER.email, '--password-stdin'], fakeIO({ stdin: USER.password }))).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await e?.cleanup();
  });

  it('prints reading the market history first, then the bar up to every rebalance', async () => {
    // When the first backtest runs, piped
    const { code, io } = await cli(['backtest', '--where', 'close > 0', '--sort', 'close:desc', '--from', DATES[0]!, '--rebalance', 'weekly', '--top', '3', '--csv', 'equity']);
    // Then it succeeds, and its progress began with what it was doing
    expect(code, io.err()).toBe(0);
    const lines = io.err().trimEnd().split('\n').filter((l) => l.startsWith('backtest '));
    // (on a busy machine the daemon may have finished reading the history before the run arrives:
    // it is then planned at once and its first line says it is queued; either way, never silence)
    expect(lines[0]).toMatch(/^backtest [0-9a-f]{8} (reading the market history \(the first run after a start or a load takes a few seconds\)…|queued, waiting for a worker \(\d+ rebalances\))$/);
    const bar = lines.findIndex((l) => /\[[#-]+\] \d+\/\d+ rebalances$/.test(l));
    expect(bar).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/\] (\d+)\/\1 rebalances$/);
    expect(io.out().split('\n')[0]).toBe('date,equity,benchmark');
  });

  it('draws the live view on a terminal: its first frame says what the run is doing, its last that it is done', async () => {
    // Given new data, so the history is to be read again
    await applyGeneratedMarket(t.daemon, tradingDaysBetween('2025-05-02', '2025-05-09'));
    const { code, io } = await cli(['backtest', '--where', 'close > 0', '--sort', 'close:desc', '--from', DATES[0]!, '--rebalance', 'weekly', '--top', '3', '--csv', 'equity'], fakeIO({ tty: true }));
    expect(code, io.err()).toBe(0);
    // Ink draws the first frame at once, and the last one when the run ended (frames between may be coalesced)
    const drawn = stripVTControlCharacters(io.err());
    // The first frame: reading the history (with what that means), or queued when the daemon had
    // already read the new history before the run was accepted (its preload after the load)
    const first = /^backtest [0-9a-f]{8} (reading history|queued)\s+░+/.exec(drawn);
    expect(first, drawn).not.toBeNull();
    if (first![1] === 'reading history') expect(drawn).toContain('the market history is read into memory');
    expect(drawn.trimEnd()).toMatch(/backtest [0-9a-f]{8} done\s+█+ (\d+)\/\1 rebalances \d+ s$/);
  });
});
