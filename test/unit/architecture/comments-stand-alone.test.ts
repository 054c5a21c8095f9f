/**
 * Comments, docs and test names stand alone: a reader of a clone has the code, its docs and git,
 * nothing else. So no source, test, script or doc in the repository points at an issue tracker
 * entry ("issue 12", "#12") or at a document outside the repository (a conventions or spec file
 * in the development workspace): each says the reason itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './import-graph.js';

/** Folders scanned, and the top-level files beside them. */
const FOLDERS = ['bin', 'cli', 'daemon', 'loaders', 'loadtest', 'test'];
/** Text a reader opens: code, scripts and docs (data fixtures are not prose). */
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|sh)$|^[^.]+$/;
const SKIP_DIRS = new Set(['node_modules', 'fixtures', 'dist', 'results']);

/** Pointers that lead nowhere from a clone, each with the reason it is refused. */
const DANGLING: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /\bissues? #?\d+/i, why: 'cites an issue number' },
  { pattern: /(?<![&\w/])#\d+\b/, why: 'cites an issue as #N' },
  { pattern: /\bCONVENTIONS\b/, why: 'points at a conventions document outside the repository' },
  { pattern: /\bDEVELOPERS(\.md)?\b/, why: 'points at a developers document outside the repository' },
  { pattern: /\.\.\/shared\/|\/work\/shared\b/, why: 'names a path outside the repository' },
  { pattern: /service-interface\.md/, why: 'names the spec file, which is not in the repository' },
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : filesUnder(path);
    return TEXT.test(e.name) ? [path] : [];
  });
}

/** Every dangling pointer of `text`, as `file:line: why — the line`. */
function danglingPointers(name: string, text: string): string[] {
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { pattern, why } of DANGLING) {
      if (pattern.test(line)) out.push(`${name}:${i + 1}: ${why} — ${line.trim().slice(0, 120)}`);
    }
  });
  return out;
}

describe('comments, docs and test names stand alone', () => {
  it('recognises each kind of dangling pointer, and not the words around them', () => {
    expect(danglingPointers('a.ts', '// retries (issue 19)')).toHaveLength(1);
    expect(danglingPointers('a.ts', '/** Issues 3 and 9: sample market */')).toHaveLength(1);
    expect(danglingPointers('a.ts', '// fixed in #42')).toHaveLength(1);
    expect(danglingPointers('a.md', 'see CONVENTIONS "CLI"')).toHaveLength(1);
    expect(danglingPointers('a.md', 'read `../shared/notes.md`')).toHaveLength(1);
    expect(danglingPointers('a.ts', "import { action } from '../shared.js';")).toEqual([]);
    expect(danglingPointers('a.ts', "// a listed issue's designation; 899 halted issue-days; &#39; color #fff")).toEqual([]);
  });

  it('no file in the repository cites an issue number or a document outside it', () => {
    const self = relative(ROOT, import.meta.filename);
    const files = [
      ...readdirSync(ROOT).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, f)),
      ...FOLDERS.flatMap((d) => filesUnder(join(ROOT, d))),
    ].filter((f) => relative(ROOT, f) !== self && basename(f) !== 'node_modules');
    expect(files.length).toBeGreaterThan(500);
    const found = files.flatMap((f) => danglingPointers(relative(ROOT, f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });
});
