/**
 * The JWT signing key: configured, or generated once and kept where every daemon of
 * the deployment finds it — in the database with PostgreSQL (several daemons must
 * accept each other's tokens), in `data_dir/jwt-secret` (mode 0600) with sqlite.
 */
import { randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../store/db.js';
import { createSecretsRepo } from '../store/secrets-repo.js';

/** Where the key comes from: the configured secret, else the data dir or database. */
export interface SecretSource {
  jwt_secret?: string | undefined;
  data_dir: string;
}

/**
 * The signing key for access tokens.
 * @throws when `data_dir/jwt-secret` exists but holds under 32 characters, or cannot be read or written
 */
export async function loadOrCreateSecret(config: SecretSource, db: Db): Promise<string> {
  if (config.jwt_secret) return config.jwt_secret;
  if (db.dialect.name === 'postgres') return createSecretsRepo(db).getOrCreate('jwt_secret', () => randomBytes(48).toString('base64url'));
  const file = join(config.data_dir, 'jwt-secret');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch {
    // absent: generate below
  }
  // Written whole to a temp file, then linked into place: link() fails if another process
  // sharing the data dir got there first, and then its complete secret is the one to use.
  const secret = randomBytes(48).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, secret + '\n', { mode: 0o600 });
  try {
    await link(temp, file);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const theirs = (await readFile(file, 'utf8')).trim();
    if (theirs.length < 32) throw new Error(`${file} holds no usable secret (under 32 characters): delete it to have one generated`);
    return theirs;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}
