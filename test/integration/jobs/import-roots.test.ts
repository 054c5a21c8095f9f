/**
 * Server-side paths of load jobs only inside import_dirs; everything else is a
 * 400 with the reason, before a byte is read, and the answer never carries file content.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTSIDE_ROOTS, PATH_LOADS_OFF } from '../../../daemon/jobs/import-roots.js';
import { waitForJob } from '../../helpers/jobs.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/test-daemon.js';

const ADMIN = { admin_email: 'ops@example.com', admin_password: 'ops-password-1' };
const SECRET = 'root:*:20000:0:99999:7:::secret-content';

async function adminToken(t: TestDaemon): Promise<string> {
  const res = await t.request('/api/v1/auth/login', { method: 'POST', json: { email: ADMIN.admin_email, password: ADMIN.admin_password } });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('import roots', () => {
  let base: string;
  let root: string;
  let outside: string;
  let t: TestDaemon;
  let token: string;
  const post = (paths: unknown[]) => t.request('/api/v1/admin/jobs', { method: 'POST', token, json: { type: 'load-files', paths, compute: false } });

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'roots-'));
    root = join(base, 'root');
    outside = join(base, 'outside');
    await mkdir(join(root, 'krx'), { recursive: true });
    await mkdir(outside);
    // A file outside the root whose content must never show, and ways to reach it from inside.
    await writeFile(join(outside, 'shadow.json'), SECRET);
    await writeFile(join(outside, 'listing.csv'), 'Code,Name,Market,Sector,Industry,ListingDate,Shares\n005930,삼성전자,KOSPI,,,1975-06-11,100\n');
    await symlink(join(outside, 'shadow.json'), join(root, 'link.json'));
    await symlink(join(outside, 'gone.json'), join(root, 'dangling.json'));
    await symlink(outside, join(root, 'krx', 'escape'));
    await writeFile(join(root, 'krx', 'listing.csv'), 'Code,Name,Market,Sector,Industry,ListingDate,Shares\n000660,SK하이닉스,KOSPI,,,1996-12-26,100\n');
    t = await startTestDaemon('roots', { workers: 1, ...ADMIN, import_dirs: [root] });
    token = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
    await rm(base, { recursive: true, force: true });
  });

  it.each([
    ['an existing file outside', () => join(outside, 'shadow.json')],
    ['a missing file outside', () => join(outside, 'nothing-here.json')],
    ['a `..` escape', () => join(root, '..', 'outside', 'shadow.json')],
    ['a relative `..` escape', () => '../outside/shadow.json'],
    ['a symlink leading out', () => join(root, 'link.json')],
    ['a dangling symlink', () => join(root, 'dangling.json')],
    ['a folder behind a symlink', () => join(root, 'krx', 'escape')],
    ['/etc/shadow', () => '/etc/shadow'],
  ])('refuses %s with the same 400, quoting nothing', async (_label, path) => {
    // When a job names it
    const res = await post([{ path: path(), format: 'dart-json' }]);
    // Then it is refused before anything is enqueued, with one reason for existing and missing alike
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(JSON.parse(text).error.details).toEqual({ 'paths.0': OUTSIDE_ROOTS });
    expect(text).not.toContain('root:*');
    expect(text).not.toContain('secret-content');
  });

  it('says "not found" only for a missing path inside a root', async () => {
    const res = await post([join(root, 'krx', 'missing.csv')]);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details).toEqual({ 'paths.0': 'not found' });
  });

  it('loads a folder inside the root without following a symlink out of it', async () => {
    // Given a folder holding its own listing and a symlink to a folder outside with another
    const res = await post([join(root, 'krx')]);
    expect(res.status).toBe(202);
    const result: any = await waitForJob(t.daemon, ((await res.json()) as any).data.id);
    // Then only the file inside was read
    expect(result.files.map((f: any) => f.file)).toEqual([expect.stringMatching(/root\/krx\/listing\.csv$/)]);
    expect(await t.daemon.context().store.stocks.get('000660')).toBeDefined();
    expect(await t.daemon.context().store.stocks.get('005930')).toBeUndefined();
  });

  it('turns path loads off when no import directory is configured', async () => {
    const off = await startTestDaemon('roots-off', { workers: 0, ...ADMIN });
    try {
      const res = await off.request('/api/v1/admin/jobs', { method: 'POST', token: await adminToken(off), json: { type: 'load-files', paths: [join(root, 'krx')] } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.details).toEqual({ 'paths.0': PATH_LOADS_OFF });
    } finally {
      await off.close();
    }
  });
});
