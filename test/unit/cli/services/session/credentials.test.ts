import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCredentialsStore, credentialsFromTokens, validateProfile, type Credentials } from '../../../../../cli/services/session/credentials.js';
import { CliError } from '../../../../../cli/services/session/errors.js';
import { resolvePaths } from '../../../../../cli/services/session/paths.js';

const creds = (email: string): Credentials => ({
  url: 'http://127.0.0.1:8000',
  email,
  access_token: `access-${email}`,
  refresh_token: `refresh-${email}`,
  expires_at: '2030-01-01T01:00:00.000Z',
  saved_at: '2030-01-01T00:00:00.000Z',
});

describe('credentials store', () => {
  let root: string;
  let file: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'cli-creds-'));
    file = resolvePaths({ XDG_CONFIG_HOME: join(root, 'config'), HOME: root }).credentialsFile;
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('writes $XDG_CONFIG_HOME/stockscreen/credentials.json with mode 0600 in a 0700 directory', async () => {
    await createCredentialsStore(file).save('default', creds('a@example.com'));
    expect(file).toBe(join(root, 'config', 'stockscreen', 'credentials.json'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
  });

  it('tightens a file that was left readable by others', async () => {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ profiles: {} }));
    await chmod(file, 0o644);
    await createCredentialsStore(file).save('default', creds('a@example.com'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('keeps profiles apart and removes one without touching the other', async () => {
    const store = createCredentialsStore(file);
    await store.save('default', creds('a@example.com'));
    await store.save('prod', creds('b@example.com'));
    expect((await store.get('default'))?.email).toBe('a@example.com');
    expect((await store.get('prod'))?.email).toBe('b@example.com');
    expect(await store.remove('prod')).toBe(true);
    expect(await store.remove('prod')).toBe(false);
    expect(await store.profiles()).toEqual(['default']);
    // A second store over the same file sees the same content (it is on disk, not in memory)
    expect((await createCredentialsStore(file).get('default'))?.access_token).toBe('access-a@example.com');
  });

  it('answers undefined for a profile never saved, and when no file exists', async () => {
    const store = createCredentialsStore(file);
    expect(await store.get('default')).toBeUndefined();
    expect(await store.profiles()).toEqual([]);
  });

  it('reports a corrupt file with its path and a way out', async () => {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '{ not json');
    const err = await createCredentialsStore(file).get('default').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toContain(file);
    expect((err as CliError).exitCode).toBe(1);
  });

  it('leaves no temp file behind', async () => {
    await createCredentialsStore(file).save('default', creds('a@example.com'));
    const content = JSON.parse(await readFile(file, 'utf8'));
    expect(Object.keys(content.profiles)).toEqual(['default']);
    expect(await readdir(dirname(file))).toEqual(['credentials.json']);
  });
});

describe('credentialsFromTokens', () => {
  it('computes expires_at as now + expires_in', () => {
    // 2030-01-01T00:00:00Z + 3600 s = 2030-01-01T01:00:00Z
    const c = credentialsFromTokens(
      { access_token: 'a', refresh_token: 'r', token_type: 'bearer', expires_in: 3600, refresh_expires_in: 86_400 },
      'http://x:1',
      'me@example.com',
      new Date('2030-01-01T00:00:00.000Z'),
    );
    expect(c).toEqual({
      url: 'http://x:1',
      email: 'me@example.com',
      access_token: 'a',
      refresh_token: 'r',
      expires_at: '2030-01-01T01:00:00.000Z',
      saved_at: '2030-01-01T00:00:00.000Z',
    });
  });
});

describe('validateProfile', () => {
  it('accepts plain names and rejects paths and empty names (usage error, exit 2)', () => {
    expect(validateProfile('prod-2.eu_1')).toBe('prod-2.eu_1');
    for (const bad of ['', '../etc', 'a/b', '.hidden', 'x'.repeat(65)]) {
      expect(() => validateProfile(bad), bad).toThrow(CliError);
      expect(() => validateProfile(bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
    }
  });
});
