import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followFile, formatLogLine, listeningUrl, readLogLines } from '../../../../../cli/services/daemon/log-file.js';

describe('log file', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-log-'));
    file = join(dir, 'stockscreend.log');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads the last n lines, from an offset, and nothing for a missing file', async () => {
    await writeFile(file, 'one\ntwo\nthree\n');
    expect(await readLogLines(file, { count: 2 })).toEqual(['two', 'three']);
    expect(await readLogLines(file, { from: 4 })).toEqual(['two', 'three']); // "one\n" is 4 bytes
    expect(await readLogLines(join(dir, 'absent.log'))).toEqual([]);
  });

  it('follows appended text until aborted', async () => {
    await writeFile(file, 'old\n');
    const controller = new AbortController();
    let seen = '';
    let resolveSeen!: () => void;
    const gotNew = new Promise<void>((r) => (resolveSeen = r));
    const following = followFile(file, 4, (text) => {
      seen += text;
      if (seen.includes('new')) resolveSeen();
    }, controller.signal);
    await appendFile(file, 'new line\n');
    await gotNew;
    controller.abort();
    await following;
    expect(seen).toBe('new line\n');
  });

  it('formats pino lines as time, level, message and leaves other lines alone', () => {
    // time 0 = 1970-01-01T00:00:00.000Z, level 40 = WARN
    expect(formatLogLine('{"level":40,"time":0,"msg":"redis down"}')).toBe('1970-01-01T00:00:00.000Z WARN  redis down');
    expect(formatLogLine('stockscreend: SIGTERM received')).toBe('stockscreend: SIGTERM received');
  });

  it('finds the URL of the "listening" line', () => {
    const lines = ['{"level":30,"msg":"admin account ensured"}', 'noise', '{"level":30,"url":"http://127.0.0.1:4321","msg":"stockscreend listening on http://127.0.0.1:4321"}'];
    expect(listeningUrl(lines)).toBe('http://127.0.0.1:4321');
    expect(listeningUrl(lines.slice(0, 2))).toBeUndefined();
  });
});
