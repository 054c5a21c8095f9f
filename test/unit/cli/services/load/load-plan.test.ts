import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../../../../cli/services/session/errors.js';
import { checkLoadFlags, dryRunFile, jobPaths, planPaths, unrecognisedFiles } from '../../../../../cli/services/load/load-plan.js';

const HISTORY = 'Date,Open,High,Low,Close,Volume\n2026-03-19,100,110,90,105,1000\n2026-03-20,100,110,90,105,1000\n';

describe('load planning', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'load-plan-'));
    await mkdir(join(dir, 'folder'));
    await writeFile(join(dir, 'folder', '005930.csv'), HISTORY);
    await writeFile(join(dir, 'folder', 'notes.txt'), 'hello\n');
    await writeFile(join(dir, '000660.csv'), HISTORY);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('resolves relative paths, detects file formats and plans folders (unrecognised files marked)', async () => {
    const plan = await planPaths(['000660.csv', 'folder'], dir, {});
    expect(plan.map((p) => [p.path, p.kind])).toEqual([[join(dir, '000660.csv'), 'file'], [join(dir, 'folder'), 'folder']]);
    expect(plan[0]!.files).toEqual([{ path: join(dir, '000660.csv'), format: 'ohlcv' }]);
    expect(unrecognisedFiles(plan)).toEqual([{ path: join(dir, 'folder', 'notes.txt'), format: null }]);
    expect(jobPaths(plan, {})).toEqual([join(dir, '000660.csv'), join(dir, 'folder')]);
  });

  it('sends per-file flags with a single file and refuses them with folders or several files', async () => {
    const plan = await planPaths(['000660.csv'], dir, { format: 'ohlcv', code: '000660' });
    expect(jobPaths(plan, { format: 'ohlcv', code: '000660' })).toEqual([{ path: join(dir, '000660.csv'), format: 'ohlcv', code: '000660' }]);
    await expect(planPaths(['folder'], dir, { date: '2026-03-20' })).rejects.toThrow(/apply to single files/);
    await expect(planPaths(['000660.csv', 'folder/005930.csv'], dir, { code: '000660' })).rejects.toThrow(/give one path with it/);
  });

  it('checks flag formats before touching files', () => {
    for (const flags of [{ format: 'xlsx' }, { date: '20260320' }, { code: '5930' }]) {
      expect(() => checkLoadFlags(flags)).toThrow(CliError);
    }
    expect(() => checkLoadFlags({ format: 'krx-quotes', date: '2026-03-20', code: '0126Z0' })).not.toThrow();
  });

  it('dry-runs a file: counts rows, keeps reasons, and reports an unrecognised file as refused', async () => {
    const ok = await dryRunFile({ path: join(dir, '000660.csv'), format: 'ohlcv' }, {});
    expect(ok).toMatchObject({ format: 'ohlcv', rows_total: 2, rows_ok: 2, rows_rejected: 0, refused: null });
    const unknown = await dryRunFile({ path: join(dir, 'folder', 'notes.txt'), format: null }, {});
    expect(unknown.refused).toContain('unrecognised file format');
  });
});
