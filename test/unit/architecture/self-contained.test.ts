/**
 * A clone holds everything the suite and the benches read: no test, helper or bench names a
 * path outside the repository (a user's clone has nothing beside it), so every relative path
 * written in a test or bench source must resolve inside the repository root.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './import-graph.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : filesUnder(path);
    return /\.(ts|tsx)$/.test(e.name) ? [path] : [];
  });
}

/** Relative paths ('../x', './y') quoted in a source that climb out of the repository, as `file: path`. */
function escapes(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/['"`]((?:\.\.\/)+[^'"`\s]*)['"`]/g)) {
    const target = resolve(dirname(file), m[1]!);
    if (relative(ROOT, target).startsWith(`..${sep}`) || relative(ROOT, target) === '..') out.push(`${relative(ROOT, file)}: ${m[1]}`);
  }
  if (/shared\/(data|spec|sources)\//.test(text)) out.push(`${relative(ROOT, file)}: names the development workspace's shared/ folder`);
  return out;
}

describe('the suite is self-contained', () => {
  it('no test, helper or bench reads a path outside the repository', () => {
    const files = [...filesUnder(join(ROOT, 'test')), ...filesUnder(join(ROOT, 'loadtest'))];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(escapes)).toEqual([]);
  });
});
