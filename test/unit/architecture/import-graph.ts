/**
 * The project's import graph as the architecture tests read it: every .ts/.tsx file of the
 * source folders and the project files it imports (values and types, `export … from`, and
 * `import(...)` types too). Relative specifiers only: packages are not part of the graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The repository root. */
export const ROOT = join(import.meta.dirname, '../../..');
/** The folders whose files make up the graph. */
export const SOURCES = ['daemon', 'cli', 'loaders', 'loadtest', 'scripts'];

/** Every source file (absolute paths). */
export function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name)) out.push(p);
    }
  };
  for (const d of SOURCES) walk(join(ROOT, d));
  return out;
}

/** file → the project files it imports (absolute paths). */
export function importGraph(): Map<string, string[]> {
  const files = new Set(sourceFiles());
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const src = readFileSync(f, 'utf8');
    const deps: string[] = [];
    for (const m of src.matchAll(/(?:^(?:import|export)\s[^'"]*?from\s+|import\()['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      const base = resolve(dirname(f), m[1]!).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => files.has(c));
      if (target) deps.push(target);
    }
    graph.set(f, deps);
  }
  return graph;
}
