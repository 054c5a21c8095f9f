/**
 * `stockscreen alerts` and `stockscreen portfolio` against a real daemon: CRUD through the
 * CLI, an alert fired by an ingested tick showing in `watch --json` and `alerts history`,
 * and the server's validation details with exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeIO, tempEnv } from './fake-io.js';
import { run } from '../../../cli/main.js';
import { stripVTControlCharacters } from 'node:util';
import { priceNear, startMarketHarness, streamIO, ttyIO, type MarketHarness } from './market-harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('stockscreen alerts and portfolio', () => {
  let h: MarketHarness;
  beforeAll(async () => {
    h = await startMarketHarness('cli-alerts');
  });
  afterAll(() => h?.close());

  it('fires an alert from an ingested tick: seen live in `watch` and then in `alerts history`', async () => {
    const a = h.stocks[0]!;
    const threshold = priceNear(a.close, 5);
    // Given a one-shot price_above alert
    const added = await h.cli(['--json', 'alerts', 'add', a.code, 'price_above', String(threshold), '--note', 'breakout']);
    expect(added.code).toBe(0);
    const alert = JSON.parse(added.io.out()).data;
    expect(alert).toMatchObject({ code: a.code, alert_type: 'price_above', threshold, recurring: false, active: true, note: 'breakout', fire_count: 0 });
    expect(added.io.err()).toContain(`alert ${alert.id}: ${a.code} price_above`);

    // When a tick crosses it while `watch` runs
    const stop = new AbortController();
    const io = streamIO({ signal: stop.signal });
    const done = h.cli(['watch', a.code, '--json'], io);
    await io.waitForJson((m) => m.type === 'subscribed');
    const price = await h.tick(a.code, priceNear(a.close, 6), 5000);
    const fired = await io.waitForJson((m) => m.type === 'alert');
    stop.abort();
    expect((await done).code).toBe(0);

    // Then the owner's watch shows the spec's alert message
    expect(fired).toMatchObject({ code: a.code, alert_type: 'price_above', threshold, current_price: price, sequence: expect.any(Number) });
    expect(String(fired.message)).toContain(`(${a.code}) price`);
    // And the history lists the firing (TSV: fired_at, alert id, code, type, threshold, price, message)
    const history = await h.cli(['alerts', 'history', alert.id]);
    expect(history.code).toBe(0);
    const rows = history.io.out().trimEnd().split('\n').map((l) => l.split('\t'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.slice(1, 6)).toEqual([alert.id, a.code, 'price_above', String(threshold), String(price)]);
    expect(rows[0]![6]).toBe(fired.message);
    // And the one-shot alert is now inactive, having fired once
    const list = await h.cli(['alerts', 'list', '--code', a.code]);
    // Piped: a header row like every list, then the alert
    const [header, line] = list.io.out().trimEnd().split('\n');
    expect(header).toBe('ID\tCODE\tNAME\tTYPE\tTHRESHOLD\tACTIVE\tRECURRING\tCOOLDOWN\tFIRED\tLAST FIRED\tNOTE\tPRESET\tCHANNELS\tMEMBERSHIP\tDWELL');
    const row = line!.split('\t');
    expect([row[0], row[5], row[8]]).toEqual([alert.id, 'no', '1']);
    expect((await h.cli(['alerts', 'list', '--active', '--code', a.code])).io.out()).toBe(`${header}\n`);
  });

  it('creates an alert on a preset\'s live screen with `alerts add-screen` (the preset by name), listed with its preset', async () => {
    const saved = await h.cli(['--json', 'presets', 'save', 'top-gainers', '--sort', 'change_percent:desc', '--limit', '5']);
    expect(saved.code).toBe(0);
    const preset = JSON.parse(saved.io.out()).data;
    const added = await h.cli(['--json', 'alerts', 'add-screen', 'top-gainers', 'screen_enter', '--recurring', '--cooldown', '30m', '--membership', 'page', '--dwell', '45s']);
    expect(added.code).toBe(0);
    const alert = JSON.parse(added.io.out()).data;
    expect(alert).toMatchObject({ preset_id: preset.id, code: null, threshold: null, alert_type: 'screen_enter', recurring: true, cooldown_s: 1800, membership: 'page', dwell_s: 45 });
    expect(added.io.err()).toContain(`preset ${preset.id} screen_enter by its page (recurring, cooldown 30m, dwell 45s)`);
    const row = (await h.cli(['alerts', 'list', '--type', 'screen_enter'])).io.out().trimEnd().split('\n')[1]!.split('\t');
    expect([row[0], row[3], row[11], row[13], row[14]]).toEqual([alert.id, 'screen_enter', preset.id, 'page', '45']);
    // The preset only sorts: membership by its conditions is refused with what to use instead; a dwell over an hour too.
    const byConditions = await h.cli(['alerts', 'add-screen', 'top-gainers', 'screen_exit', '--membership', 'conditions']);
    expect(byConditions.code).toBe(1);
    expect(byConditions.io.err()).toContain('page');
    expect((await h.cli(['alerts', 'add-screen', 'top-gainers', 'screen_exit', '--dwell', '2h'])).code).not.toBe(0);
    // Changed later: counted at once.
    const edited = await h.cli(['--json', 'alerts', 'edit', alert.id, '--dwell', '0']);
    expect(JSON.parse(edited.io.out()).data).toMatchObject({ membership: 'page', dwell_s: 0 });
    // A price type is refused by the command; an unknown preset names what to do.
    expect((await h.cli(['alerts', 'add-screen', 'top-gainers', 'price_above'])).code).not.toBe(0);
    const unknown = await h.cli(['alerts', 'add-screen', 'no-such-preset', 'screen_exit']);
    expect(unknown.code).toBe(1);
    expect(unknown.io.err()).toContain('no preset named "no-such-preset"');
  });

  it('edits and removes an alert', async () => {
    const a = h.stocks[1]!;
    const added = JSON.parse((await h.cli(['--json', 'alerts', 'add', a.code, 'change_percent_below', '-3.5'])).io.out()).data;
    // An id prefix is enough.
    const edited = await h.cli(['--json', 'alerts', 'edit', added.id.slice(0, 8), '--threshold', '-5', '--recurring', '--cooldown', '10m']);
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.io.out()).data).toMatchObject({ id: added.id, threshold: -5, recurring: true, cooldown_s: 600 });
    expect((await h.cli(['alerts', 'edit', added.id])).code).toBe(2);
    const rm = await h.cli(['--json', 'alerts', 'rm', added.id]);
    expect(rm.code).toBe(0);
    expect(rm.io.out()).toBe('');
    expect(rm.io.err()).toBe(`deleted alert ${added.id}\n`);
    const again = await h.cli(['alerts', 'rm', added.id]);
    expect(again.code).toBe(1);
    expect(again.io.err()).toContain('(NOT_FOUND');
  });

  it("gives the server's field details with exit 1 for invalid input", async () => {
    const a = h.stocks[0]!;
    const threshold = await h.cli(['alerts', 'add', a.code, 'price_above', '-5']);
    expect(threshold.code).toBe(1);
    expect(threshold.io.err()).toMatch(/^error: .+ \(INVALID_REQUEST, request [0-9a-f-]{36}\)\n {2}threshold: must be a positive price for price_above\n/);
    const unknown = await h.cli(['alerts', 'add', '999999', 'price_above', '100']);
    expect(unknown.code).toBe(1);
    expect(unknown.io.err()).toContain('  code: no listed stock has the code 999999');
    const price = await h.cli(['portfolio', 'add', a.code, '10', '-5']);
    expect(price.code).toBe(1);
    expect(price.io.err()).toContain('  average_price: must be greater than 0');
    // A type the CLI knows is invalid never reaches the server: a usage error.
    expect((await h.cli(['alerts', 'add', a.code, 'price_sideways', '1'])).code).toBe(2);
    expect((await h.cli(['portfolio', 'add', a.code, '0', '100'])).code).toBe(2);
  });

  it('needs a login (exit 4)', async () => {
    const env = await tempEnv();
    try {
      for (const argv of [['alerts', 'list'], ['portfolio', 'show']]) {
        const io = fakeIO();
        expect(await run(['--url', h.t.url, ...argv], io, env.env)).toBe(4);
        expect(io.err()).toContain('not logged in');
      }
    } finally {
      await env.cleanup();
    }
  });

  it('adds, merges, shows, measures and removes holdings', async () => {
    const s = h.stocks[4]!;
    const p1 = s.close;
    const p2 = priceNear(s.close, -10);
    const first = await h.cli(['--json', 'portfolio', 'add', s.code, '10', String(p1), '--acquired-at', '2025-01-02', '--note', 'core']);
    expect(first.code).toBe(0);
    const lot = JSON.parse(first.io.out()).data;
    expect(lot).toMatchObject({ code: s.code, quantity: 10, average_price: p1, acquired_at: '2025-01-02', note: 'core', merged: false });
    expect(lot.id).toMatch(UUID);
    // A second buy of the same stock merges: (10·p1 + 30·p2) / 40.
    const second = await h.cli(['portfolio', 'add', s.code, '30', String(p2)]);
    expect(second.io.err()).toContain(`merged into holding ${lot.id}: now 40 shares`);
    const average = (10 * p1 + 30 * p2) / 40;

    // show, piped: id, code, name, quantity, average_price, current_price, market_value, cost, …
    const show = await h.cli(['portfolio', 'show']);
    const [head, holdingLine] = show.io.out().trimEnd().split('\n');
    expect(head).toBe('ID\tCODE\tNAME\tQUANTITY\tAVERAGE_PRICE\tCURRENT_PRICE\tMARKET_VALUE\tCOST\tUNREALIZED_PNL\tUNREALIZED_PNL_PERCENT\tDAY_CHANGE_PERCENT\tWEIGHT');
    const row = holdingLine!.split('\t');
    expect(row.slice(0, 4)).toEqual([lot.id, s.code, s.name, '40']);
    expect(Number(row[4])).toBeCloseTo(average, 6);
    // No tick for this stock: valued at its last close.
    expect(row.slice(5, 8).map(Number)).toEqual([s.close, 40 * s.close, expect.closeTo(40 * average, 4)]);
    const body = JSON.parse((await h.cli(['--json', 'portfolio', 'show'])).io.out());
    expect(body.data.totals).toMatchObject({ holdings: 1, market_value: 40 * s.close });

    // perf: the figures, and the daily series on request
    const perf = JSON.parse((await h.cli(['--json', 'portfolio', 'perf'])).io.out()).data;
    expect(perf.total_value).toBe(40 * s.close);
    expect(Object.keys(perf.returns)).toEqual(['1W', '1M', '3M', '6M', 'YTD', '1Y']);
    expect(perf.series).toBeUndefined();
    const withSeries = JSON.parse((await h.cli(['--json', 'portfolio', 'perf', '--series'])).io.out()).data;
    expect(withSeries.series.length).toBeGreaterThan(1);
    // piped: a header row, then the row
    const [header, perfRow, ...more] = (await h.cli(['portfolio', 'perf'])).io.out().trimEnd().split('\n');
    expect(more).toEqual([]);
    expect(header!.split('\t').slice(0, 2)).toEqual(['TOTAL_VALUE', 'TOTAL_COST']);
    const plain = perfRow!.split('\t');
    expect(plain).toHaveLength(20);
    expect(header!.split('\t')).toHaveLength(20);
    expect(Number(plain[0])).toBe(40 * s.close);
    const [seriesHeader, ...seriesRows] = (await h.cli(['portfolio', 'perf', '--series'])).io.out().trimEnd().split('\n');
    expect(seriesHeader).toBe('DATE\tVALUE\tRETURN_INDEX');
    expect(seriesRows).toHaveLength(withSeries.series.length);
    expect(seriesRows.at(-1)!.split('\t')[0]).toBe(withSeries.series.at(-1).date);

    // On a terminal: the holdings table and the performance view with its value chart
    const table = await h.cli(['--no-color', 'portfolio', 'show'], ttyIO());
    expect(table.io.out()).toMatch(/ID\s+CODE\s+NAME\s+QTY\s+AVG PRICE\s+PRICE\s+VALUE\s+P&L\s+P&L %\s+DAY %\s+WEIGHT/);
    expect(table.io.out()).toMatch(new RegExp(`${lot.id.slice(0, 8)}\\s+${s.code}\\s+${s.name}\\s+40\\s`));
    expect(table.io.out()).toMatch(/TOTAL\s+1 holding\(s\)/);
    expect(table.io.out()).not.toMatch(/\u001b\[3\d/);
    const view = stripVTControlCharacters((await h.cli(['portfolio', 'perf'], ttyIO())).io.out());
    expect(view).toContain('Value (KRW)');
    expect(view).toMatch(/┤[\u2800-\u28ff]+/);
    expect(view).toMatch(new RegExp(`value\\s+${(40 * s.close).toLocaleString('en-US')} KRW`));

    // rm: nothing on stdout; the portfolio is empty again (not an error)
    const rm = await h.cli(['portfolio', 'rm', lot.id.slice(0, 6)]);
    expect([rm.code, rm.io.out()]).toEqual([0, '']);
    const empty = await h.cli(['portfolio', 'show']);
    expect([empty.code, empty.io.out().split('\n').length]).toEqual([0, 2]); // the header row only
  });
});
