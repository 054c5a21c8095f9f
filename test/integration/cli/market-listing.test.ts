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
});
