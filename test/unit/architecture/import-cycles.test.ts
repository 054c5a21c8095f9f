/**
 * Import cycles: none between files, type imports included, except the ones listed
 * below as known debt; a new cycle, or a new pair of folders importing each other, fails here.
 * The lists may only shrink: a listed cycle that disappears fails too, so the list stays true.
 */
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, ROOT } from './import-graph.js';

/** File cycles still to break: none (the WebSocket connection's collaborators got narrow interfaces; the list may only shrink). */
const KNOWN_FILE_CYCLES: string[][] = [];
/** Folder pairs importing each other: none (the list may only shrink). */
const KNOWN_FOLDER_CYCLES: string[] = [];

/** Strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(ROOT, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles', () => {
  const graph = importGraph();

  it('has no cycle between files but the known ones (migrations import their index for its type only)', () => {
    const found = cycles(graph).filter((c) => !c.every((f) => f.startsWith('daemon/store/migrations/')));
    expect(found.sort()).toEqual(KNOWN_FILE_CYCLES);
  });

  it('has no pair of folders importing each other but the known ones', () => {
    const folder = (f: string) => relative(ROOT, f).split('/').slice(0, 2).join('/');
    const edges = new Set<string>();
    for (const [f, deps] of graph) for (const d of deps) if (folder(f) !== folder(d)) edges.add(`${folder(f)} > ${folder(d)}`);
    const pairs = [...edges]
      .map((e) => e.split(' > ') as [string, string])
      .filter(([a, b]) => a < b && edges.has(`${b} > ${a}`))
      .map(([a, b]) => `${a} <> ${b}`)
      .sort();
    expect(pairs).toEqual(KNOWN_FOLDER_CYCLES);
  });

  it('sees cycles when there are some (the walk reads imports at all)', () => {
    const demo = new Map([['/a.ts', ['/b.ts']], ['/b.ts', ['/a.ts']]]);
    expect(cycles(demo)).toHaveLength(1);
  });
});
