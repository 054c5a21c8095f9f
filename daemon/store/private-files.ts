/**
 * Files only the daemon's user may read: the sqlite database (sqlite gives its -wal, -shm
 * and -journal files the database file's mode when it creates them) and secrets. An
 * existing file keeps its owner but loses every group and other permission.
 */
import { chmod, open, stat } from 'node:fs/promises';

/** Owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Create `file` (empty) with mode 0600 when it is absent, and take group and other
 * permissions away from it and from `companions` that exist (an older database's WAL).
 * @throws the file system's error when the file cannot be created or changed
 */
export async function ensurePrivateFile(file: string, companions: readonly string[] = []): Promise<void> {
  // 'a' creates without truncating; the mode applies only on creation.
  await (await open(file, 'a', PRIVATE_FILE_MODE)).close();
  for (const path of [file, ...companions]) {
    const mode = await stat(path).then((s) => s.mode & 0o777, () => undefined);
    if (mode !== undefined && (mode & 0o077) !== 0) await chmod(path, mode & 0o700);
  }
}

/** The data directory's permission bits when group or others may use it, else undefined. */
export async function sharedDirectoryMode(dir: string): Promise<string | undefined> {
  const mode = (await stat(dir)).mode & 0o777;
  return (mode & 0o077) === 0 ? undefined : `0${mode.toString(8)}`;
}
