import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../../daemon/store/sqlite.js';

describe('sqlite handle', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('opens a new file in WAL mode from several handles at once, every time', async () => {
    // Given new database files, each opened by three handles at the same moment (as when a
    // daemon and workers start together). Switching to WAL needs an exclusive lock that sqlite
    // refuses at once, without waiting, while the other handles hold the file: this used to fail
    // a few opens in a hundred with SQLITE_BUSY.
    for (let round = 0; round < 25; round++) {
      const dir = await mkdtemp(join(tmpdir(), 'stockscreen-sqlite-'));
      dirs.push(dir);
      const file = join(dir, 'stockscreen.db');
      // When they all open it
      const handles = await Promise.all([1, 2, 3].map(() => openSqlite(file)));
      // Then every one opened, and the file is in WAL mode
      for (const db of handles) expect(await db.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
      for (const db of handles) await db.close();
    }
  });

  it('answers ping while open and fails it once closed', async () => {
    // Given an open database
    const dir = await mkdtemp(join(tmpdir(), 'stockscreen-sqlite-'));
    dirs.push(dir);
    const db = await openSqlite(join(dir, 'stockscreen.db'));
    // Then ping resolves
    await expect(db.ping()).resolves.toBeUndefined();
    // When it is closed, ping rejects (health reports "disconnected")
    await db.close();
    await expect(db.ping()).rejects.toThrow();
  });
});
