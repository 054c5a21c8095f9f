import { isAbsolute, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../cli/main.js';
import { krxFile } from '../../helpers/krx-fixtures.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';
import { fakeIO, tempEnv, type FakeIO, type TempEnv } from './fake-io.js';

const ADMIN = { email: 'ops@example.com', password: 'ops-password-1' };
/** The real KRX quote file of 2026-03-20 (the repository's fixture copy). */
const LISTING = krxFile('listing/2026-03-20.csv');

describe('stockscreen load of a real KRX quote file', () => {
  let t: TestDaemon;
  let e: TempEnv;
  const cli = async (argv: string[], io: FakeIO = fakeIO()) => ({ code: await run(['--url', t.url, ...argv], io, e.env), io });

  beforeAll(async () => {
    t = await startTestDaemon('cli-listing', { workers: 1, admin_email: ADMIN.email, admin_password: ADMIN.password });
    e = await tempEnv();
    expect((await cli(['login', '--email', ADMIN.email, '--password-stdin'], fakeIO({ stdin: ADMIN.password }))).code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
    await e?.cleanup();
  });

  it('loads the file given by a relative path, after which the price of 005930 is that day\'s close', async () => {
    // Given the path relative to the current directory (the CLI reads it and uploads it)
    const path = relative(process.cwd(), LISTING);
    expect(isAbsolute(path)).toBe(false);
    // When loading it and waiting, --json
    const load = await cli(['--json', 'load', path, '--wait']);
    expect(load.code, load.io.err()).toBe(0);
    const job = JSON.parse(load.io.out());
    expect(job.data.state).toBe('completed');
    expect(job.data.data.paths).toEqual([{ format: 'fdr-listing', upload: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    expect(job.data.result.files[0]).toMatchObject({ file: expect.stringMatching(/2026-03-20\.csv$/), format: 'fdr-listing', rows_rejected: 0 });
    // Then the price of Samsung Electronics is the file's close: 0,005930,…,삼성전자,KOSPI,,199400,…
    const price = await cli(['--json', 'stocks', 'price', '005930']);
    expect(price.code).toBe(0);
    const body = JSON.parse(price.io.out());
    expect(body.data).toMatchObject({ code: '005930', name: '삼성전자', price: 199400, as_of: '2026-03-20', open: 202000, high: 202500, low: 199000, volume: 35279762 });
    // And piped, the same price is the third cell of one TSV row
    expect((await cli(['stocks', 'price', '005930'])).io.out().split('\t').slice(0, 3)).toEqual(['005930', '삼성전자', '199400']);
  });

  it('explains an empty screen: stocks left after each condition, and the fields nothing has', async () => {
    // Given only the real quote file loaded (no financial statements), as in the test above
    // When screening for cheap, profitable KOSPI stocks
    const { code, io } = await cli(['screen', '--market', 'KOSPI', '--where', 'close > 0 and per < 10 and roe > 15', '--filter', 'pbr=..1.5']);
    // Then nothing matches, and stderr says why: the funnel and what to load
    expect(code).toBe(0);
    expect(io.out().trim().split('\n')).toHaveLength(1); // the header row only
    const err = io.err();
    const kospi = Number(/why nothing matched: ([\d,]+) stocks in the universe, then/.exec(err)?.[1]?.replace(/,/g, ''));
    expect(kospi).toBeGreaterThan(900);
    expect(err).toMatch(new RegExp(`close > 0\\s+→ ${kospi.toLocaleString('en-US')} left`));
    expect(err).toMatch(/per < 10\s+→ 0 left/);
    expect(err).toMatch(/roe > 15\s+→ 0 left/);
    expect(err).toMatch(/pbr <= 1\.5\s+→ 0 left/);
    expect(err).toContain(`roe is known for 0 of ${kospi.toLocaleString('en-US')} stocks: load financial statements`);
    expect(err).toContain(`per is known for 0 of ${kospi.toLocaleString('en-US')} stocks: load financial statements`);
    // And the API carries the same in meta.explain
    const json = JSON.parse((await cli(['--json', 'screen', '--market', 'KOSPI', '--where', 'per < 10 and roe > 15'])).io.out());
    expect(json.meta.total).toBe(0);
    expect(json.meta.explain).toEqual({
      universe: kospi,
      steps: [{ condition: 'per < 10', remaining: 0 }, { condition: 'roe > 15', remaining: 0 }],
      coverage: [
        { field: 'per', known: 0, of: kospi, remedy: expect.stringContaining('load financial statements') },
        { field: 'roe', known: 0, of: kospi, remedy: expect.stringContaining('load financial statements') },
      ],
    });
    // And a screen that matches carries no explanation
    const some = JSON.parse((await cli(['--json', 'screen', '--market', 'KOSPI', '--limit', '1'])).io.out());
    expect(some.meta.total).toBeGreaterThan(0);
    expect(some.meta.explain).toBeUndefined();
  });
});
