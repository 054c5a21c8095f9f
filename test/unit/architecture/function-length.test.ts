/**
 * No function in daemon/ longer than MAX_LINES, counted from its first to its last line
 * (nested functions included: a factory whose closures add up to 200 lines is a 200-line
 * function). The functions still over the limit are listed in REMAINING with their length
 * today; a listed one may shrink, never grow, and leaves the list once it is under the limit,
 * so the list only gets shorter.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './import-graph.js';

/** The longest a function may be. */
const MAX_LINES = 79;

/** `file#function` → its length in lines when it was listed. */
const REMAINING = new Map<string, number>([
]);

/** One function: where it starts and how many lines it spans. */
interface FunctionSpan {
  name: string;
  line: number;
  lines: number;
}

/** The name a function goes by: its own, or that of the variable, property or method holding it. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText(source);
  return '<anonymous>';
}

/** Every function, method, accessor and constructor of `text`, with its length. */
export function functionSpans(fileName: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      spans.push({ name: nameOf(node as ts.FunctionLikeDeclaration, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

function daemonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return daemonFiles(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

describe('function length in daemon/', () => {
  it('counts a function from its first to its last line, closures included', () => {
    const body = Array.from({ length: 5 }, (_, i) => `  const a${i} = () => ${i};`).join('\n');
    const spans = functionSpans('a.ts', `export function outer() {\n${body}\n  return 1;\n}\nconst f = function () {};\n`);
    expect(spans.find((s) => s.name === 'outer')).toEqual({ name: 'outer', line: 1, lines: 8 });
    expect(spans.filter((s) => s.name.startsWith('a'))).toHaveLength(5);
    expect(spans.find((s) => s.name === 'f')?.lines).toBe(1);
  });

  it(`has no function over ${MAX_LINES} lines but the listed ones, and those do not grow`, () => {
    const over: string[] = [];
    const seen = new Set<string>();
    for (const file of daemonFiles(join(ROOT, 'daemon'))) {
      const path = relative(ROOT, file);
      for (const span of functionSpans(path, readFileSync(file, 'utf8'))) {
        if (span.lines <= MAX_LINES) continue;
        const key = `${path}#${span.name}`;
        seen.add(key);
        const listed = REMAINING.get(key);
        if (listed === undefined || span.lines > listed) over.push(`${path}:${span.line} ${span.name}: ${span.lines} lines${listed ? ` (listed at ${listed})` : ''}`);
      }
    }
    expect(over).toEqual([]);
    // A listed function now under the limit (or gone) leaves the list.
    expect([...REMAINING.keys()].filter((k) => !seen.has(k))).toEqual([]);
  });
});
