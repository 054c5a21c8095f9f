/**
 * Saved credentials, one entry per profile in `$XDG_CONFIG_HOME/stockscreen/credentials.json`
 * (file mode 0600, directory 0700). Writes go through a temp file and a rename so a crash
 * never leaves half a file.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { TokenPair } from '../../../daemon/contract/users.js';
import { CliError, LOCAL_CODES, usageError } from './errors.js';

/** What is kept for one profile. */
export interface Credentials {
  /** Daemon the tokens belong to. */
  url: string;
  email: string;
  access_token: string;
  refresh_token: string;
  /** ISO time the access token expires (informational; the server decides). */
  expires_at: string;
  saved_at: string;
}

/** Reads and writes the credentials file. */
export interface CredentialsStore {
  readonly file: string;
  get(profile: string): Promise<Credentials | undefined>;
  save(profile: string, credentials: Credentials): Promise<void>;
  /** Delete a profile; resolves false when there was nothing saved. */
  remove(profile: string): Promise<boolean>;
  profiles(): Promise<string[]>;
}

interface CredentialsFile {
  profiles: Record<string, Credentials>;
}

const PROFILE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Check a profile name (letters, digits, `_ . -`, up to 64 characters).
 * @throws CliError USAGE for anything else
 */
export function validateProfile(name: string): string {
  if (!PROFILE_PATTERN.test(name)) {
    throw usageError(`invalid profile name "${name}"`, 'use letters, digits, "_", "." or "-" (at most 64 characters)');
  }
  return name;
}

/** Credentials for a fresh token pair. */
export function credentialsFromTokens(tokens: TokenPair, url: string, email: string, now: Date = new Date()): Credentials {
  return {
    url,
    email,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    expires_at: new Date(now.getTime() + tokens.expires_in * 1000).toISOString(),
    saved_at: now.toISOString(),
  };
}

/** Create a store over `file`. */
export function createCredentialsStore(file: string): CredentialsStore {
  async function load(): Promise<CredentialsFile> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as Partial<CredentialsFile>;
      return { profiles: typeof parsed.profiles === 'object' && parsed.profiles ? parsed.profiles : {} };
    } catch {
      throw new CliError({ code: LOCAL_CODES.CONFIG, message: `credentials file ${file} is not valid JSON`, hint: 'delete it and run `stockscreen login` again' });
    }
  }

  async function store(content: CredentialsFile): Promise<void> {
    const dir = dirname(file);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(content, null, 2) + '\n', { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, file);
  }

  return {
    file,
    async get(profile) {
      return (await load()).profiles[profile];
    },
    async save(profile, credentials) {
      const content = await load();
      content.profiles[profile] = credentials;
      await store(content);
    },
    async remove(profile) {
      const content = await load();
      if (!(profile in content.profiles)) return false;
      delete content.profiles[profile];
      await store(content);
      return true;
    },
    async profiles() {
      return Object.keys((await load()).profiles).sort();
    },
  };
}
