/**
 * What a first-day user sees — a second `daemon start`, a wrong password,
 * English sector names, an unquoted text value, an unknown code, piped headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIO } from './fake-io.js';
import { startMarketHarness, type MarketHarness } from './market-harness.js';

describe('first-day CLI messages', () => {
  let h: MarketHarness;
  beforeAll(async () => {
    h = await startMarketHarness('cli-first-day');
  }, 120_000);
  afterAll(() => h.close());

  it('daemon start: a healthy daemon already answering at that address is reported, exit 0', async () => {
    // Given a daemon answering on its port
    const port = new URL(h.t.url).port;
    // When the user starts one there
    const { code, io } = await h.cli(['daemon', 'start', '--port', port]);
    // Then nothing is spawned: it says so and prints the URL
    expect(code).toBe(0);
    expect(io.out()).toBe(`${h.t.url}\n`);
    expect(io.err()).toContain(`a healthy stockscreend already answers at ${h.t.url}: nothing to start`);
    expect(io.err()).not.toContain('EADDRINUSE');
  });

  it('login with a wrong password hints at the password, not at logging in', async () => {
    const { code, io } = await h.cli(['login', '--email', 'nobody@example.com', '--password-stdin'], fakeIO({ stdin: 'wrong password' }));
    expect(code).toBe(4);
    expect(io.err()).toContain('hint: check the password for nobody@example.com (passwords are case-sensitive), or register it first with `stockscreen register --email nobody@example.com`');
    expect(io.err()).not.toContain('run `stockscreen login`');
  });

  it('lists sectors in Korean and English, and accepts the English name', async () => {
    // When the sectors are listed, piped
    const list = await h.cli(['stocks', 'sectors']);
    const lines = list.io.out().trimEnd().split('\n');
    expect(lines[0]).toBe('SECTOR\tENGLISH');
    expect(lines).toContain('반도체\tSemiconductors');
    // And a list by the English name equals the list by the stored Korean one
    const english = await h.cli(['stocks', 'list', '--sector', 'Semiconductors', '--limit', '500']);
    const korean = await h.cli(['stocks', 'list', '--sector', '반도체', '--limit', '500']);
    expect(english.code).toBe(0);
    expect(english.io.out()).toBe(korean.io.out());
    // And an unknown one names the command that lists them
    const bad = await h.cli(['stocks', 'list', '--sector', 'Spaceships']);
    expect(bad.code).toBe(2);
    expect(bad.io.err()).toContain('unknown sector "Spaceships"');
    expect(bad.io.err()).toContain('`stockscreen stocks sectors`');
  });

  it("market = kospi: hints to quote the value", async () => {
    const { code, io } = await h.cli(['screen', '--where', 'market = kospi and per < 10']);
    expect(code).toBe(1);
    expect(io.err()).toContain("unknown field 'kospi'");
    expect(io.err()).toContain("hint: to compare with a text value, quote it: market = 'KOSPI'");
  });

  it('stocks show of an unknown code names the code', async () => {
    const { code, io } = await h.cli(['stocks', 'show', '999999']);
    expect(code).toBe(1);
    expect(io.err()).toMatch(/^error: Stock 999999 not found \(NOT_FOUND/m);
  });
});
