/**
 * `stockscreen screen` with the screening language through run(argv, fakeIO, env)
 * against a test daemon: --where with pct_rank by sector, --column, --score, --sort score,
 * --json equal to the API, presets saved with columns and score, and a server 400 passed through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refPctRank } from '../../helpers/cross-section-reference.js';
import type { FakeIO } from './fake-io.js';
import { startMarketHarness, type MarketHarness } from './market-harness.js';

function parseTsv(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trimEnd().split('\n');
  const header = head!.split('\t').map((h) => h.toLowerCase());
  return lines.map((l) => Object.fromEntries(l.split('\t').map((v, i) => [header[i]!, v])));
}

describe('stockscreen screen with columns, score and cross-sectional functions', () => {
  let h: MarketHarness;
  const cli = (argv: string[], io?: FakeIO) => h.cli(argv, io);

  beforeAll(async () => {
    h = await startMarketHarness('cli-lang', {}, { seed: 5, stocks: 80, days: 260 });
  });
  afterAll(() => h?.close());


  const FLAGS = ['--where', 'pct_rank(roe) by sector >= 50', '--column', 'ey=1/per*100', '--score', 'roe=0.4,-per=0.3', '--sort', 'score:desc', '--fields', 'roe,per', '--limit', '500'];

  it('prints the columns and the score, sorted by score, and --json is the API body', async () => {
    const { code, io } = await cli(['screen', ...FLAGS]);
    expect(code, io.err()).toBe(0);
    const rows = parseTsv(io.out());
    expect(rows.length, io.out().slice(0, 400)).toBeGreaterThan(0);
    expect(Object.keys(rows[0]!), io.out().slice(0, 400)).toEqual(expect.arrayContaining(['ey', 'score', 'per']));
    for (const r of rows) {
      if (r.per) expect(Number(r.ey), JSON.stringify(r)).toBeCloseTo((1 / Number(r.per)) * 100, 6);
    }
    const scores = rows.map((r) => r.score).filter((s) => s !== '').map(Number);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const json = JSON.parse((await cli(['--json', 'screen', ...FLAGS])).io.out());
    expect(json.meta.columns.map((c: { name: string }) => c.name)).toEqual(['ey', 'score']);
    expect(json.data.map((s: { code: string }) => s.code)).toEqual(rows.map((r) => r.code));
  });

  it('filters on pct_rank by sector exactly as an independent computation over the market', async () => {
    const all = JSON.parse((await cli(['--json', 'screen', '--fields', 'roe', '--limit', '500'])).io.out()).data as { code: string; roe: number | null; sector: string | null }[];
    const pct = refPctRank(all.map((s) => ({ key: s.code, value: s.roe, group: s.sector })), true);
    const want = all.filter((s) => (pct.get(s.code) ?? -1) >= 90).map((s) => s.code).sort();
    const { io } = await cli(['screen', '--where', 'pct_rank(roe) by sector >= 90', '--sort', 'code:asc', '--limit', '500']);
    expect(parseTsv(io.out()).map((r) => r.code)).toEqual(want);
  });

  it('saves a preset with columns and score and runs it with the same rows', async () => {
    const save = await cli(['presets', 'save', 'mf', ...FLAGS]);
    expect(save.code, save.io.err()).toBe(0);
    const ran = await cli(['screen', '--preset', 'mf']);
    expect(ran.code, ran.io.err()).toBe(0);
    expect(parseTsv(ran.io.out()).map((r) => r.code)).toEqual(parseTsv((await cli(['screen', ...FLAGS])).io.out()).map((r) => r.code));
    const refused = await cli(['screen', '--preset', 'mf', '--score', 'roe=1']);
    expect(refused.code).not.toBe(0);
    expect(refused.io.err()).toMatch(/cannot change a preset/);
  });

  it('passes a server 400 through with its message (exit 1) and refuses bad flags locally', async () => {
    const bad = await cli(['screen', '--column', 'per=1']);
    expect(bad.code).toBe(1);
    expect(bad.io.err()).toMatch(/must not shadow/);
    const local = await cli(['screen', '--score', 'roe=0']);
    expect(local.code).not.toBe(0);
    expect(local.io.err()).toMatch(/greater than 0/);
  });

  it('shows the language in --help examples', async () => {
    const { io } = await cli(['screen', '--help']);
    expect(io.out()).toMatch(/--column/);
    expect(io.out()).toMatch(/pct_rank\(roe\) by sector/);
  });
});
