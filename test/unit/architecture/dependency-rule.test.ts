/**
 * The dependency rule, read from the imports: each folder in RULES may import
 * only the folders listed for it (the most specific rule for a file applies; the composition
 * root (COMPOSITION) has no rule: it builds everything; any other daemon file must fall under one.
 * And no wire type written twice: a type or constant the wire
 * contract (daemon/contract/) exports is never declared again by a client of the wire (WIRE_CLIENTS).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, ROOT, sourceFiles } from './import-graph.js';

/** One rule: files under `from` may import only files under one of `allow` (a folder with `/`, or one file). */
export interface DependencyRule {
  from: string;
  allow: readonly string[];
  /** Why, for the failure message and the reader. */
  why: string;
}

/** The rule table (folder → what it may import). Extend it here; the longest matching `from` wins. */
const KERNEL = ['daemon/kernel/', 'daemon/errors.ts'] as const;
/** The top-level daemon files every layer may use: the config schema and shared zod pieces. */
const ROOT_FILES = ['daemon/config.ts', 'daemon/validation.ts', 'daemon/version.ts'] as const;
const BELOW_DOMAIN = [...KERNEL, 'daemon/contract/', ...ROOT_FILES, 'daemon/infra/', 'daemon/store/'] as const;
/** The domain folders (issue features add theirs here). */
export const DOMAIN = ['daemon/market/', 'daemon/indicators/', 'daemon/screening/', 'daemon/history/', 'daemon/backtest/', 'daemon/live/', 'daemon/alerts/', 'daemon/auth/', 'daemon/portfolio/', 'daemon/ratelimit/', 'daemon/notify/'] as const;
/** Transports, inbound (HTTP, WebSocket, job workers) and outbound (data sources: provider HTTP run inside jobs). */
const TRANSPORTS = ['daemon/http/', 'daemon/ws/', 'daemon/jobs/', 'daemon/sources/'] as const;

export const RULES: readonly DependencyRule[] = [
  {
    from: 'cli/',
    // loaders/: files are checked locally before upload; loadtest/: the `loadtest` command runs the scenarios in process.
    allow: ['cli/', 'daemon/contract/', 'loaders/', 'loadtest/'],
    why: 'the CLI talks to the daemon over HTTP/WebSocket only; it shares the wire contract, nothing else',
  },
  {
    from: 'daemon/contract/',
    allow: ['daemon/contract/', ...KERNEL],
    why: 'the wire contract is the zod schemas of the wire shapes (and their types) over the shared kernel; no store, express or runtime state',
  },
  { from: 'daemon/kernel/', allow: [...KERNEL], why: 'the shared vocabulary imports nothing of ours' },
  { from: 'daemon/errors.ts', allow: [], why: 'the error-code table imports nothing of ours' },
  ...ROOT_FILES.map((from) => ({ from, allow: [...KERNEL, ...ROOT_FILES], why: 'config and shared schemas sit on the kernel' })),
  { from: 'daemon/infra/', allow: [...KERNEL, ...ROOT_FILES, 'daemon/infra/'], why: 'infrastructure (clock, logger, Redis, metrics) knows no domain' },
  { from: 'daemon/store/', allow: [...KERNEL, 'daemon/contract/', ...ROOT_FILES, 'daemon/infra/', 'daemon/store/'], why: 'repositories store the kernel\'s records; the domain calls them, never the reverse' },
  ...DOMAIN.map((from) => ({ from, allow: [...BELOW_DOMAIN, ...DOMAIN, 'loaders/'], why: 'the domain knows no transport (express, ws, BullMQ live in http/, ws/, jobs/)' })),
  ...TRANSPORTS.map((from) => ({ from, allow: [...BELOW_DOMAIN, ...DOMAIN, ...TRANSPORTS, 'loaders/'], why: 'transports use the domain; only the wiring builds them' })),
  { from: 'loaders/', allow: ['loaders/', ...KERNEL], why: 'input formats import only the kernel' },
  {
    from: 'loadtest/',
    allow: ['loadtest/', 'loaders/', 'daemon/contract/', ...KERNEL],
    why: 'the load-test kit is a client (the CLI runs it): the wire contract, no daemon internals',
  },
  // In-process benches build daemons and stores on purpose.
  { from: 'loadtest/bench', allow: ['loadtest/', 'loaders/', 'daemon/', 'cli/'], why: 'benches run the daemon in process' },
  // The provider bench drives the daemon against the same local fake of the provider the tests use.
  { from: 'loadtest/bench-kis.ts', allow: ['loadtest/', 'daemon/kernel/', 'test/fakes/'], why: 'the KIS bench runs the daemon against the test fake of the KIS API' },
];

/** Folders that talk to the daemon over the wire: they take its shapes from the contract, never write their own. */
export const WIRE_CLIENTS: readonly string[] = ['cli/', 'loadtest/'];

/** The composition root: builds every part, so it may import anything. */
const COMPOSITION = ['daemon/wiring/', 'daemon/daemon.ts', 'daemon/worker.ts', 'daemon/main.ts', 'daemon/ready-line.ts', 'daemon/run-record.ts'] as const;

/** Imports against the rule still to fix, as `importer > imported` (may only shrink). */
const KNOWN_VIOLATIONS: readonly string[] = [];

/** The rule that applies to `file` (repository-relative), if any. */
export function ruleFor(file: string, rules: readonly DependencyRule[] = RULES): DependencyRule | undefined {
  return rules.filter((r) => file.startsWith(r.from)).sort((a, b) => b.from.length - a.from.length)[0];
}

/** Every import against the rules, as `importer > imported` (repository-relative). */
export function violations(graph: Map<string, string[]>, rules: readonly DependencyRule[] = RULES): string[] {
  const out: string[] = [];
  for (const [file, deps] of graph) {
    const from = relative(ROOT, file);
    const rule = ruleFor(from, rules);
    if (!rule) continue;
    for (const dep of deps) {
      const to = relative(ROOT, dep);
      if (!rule.allow.some((a) => (a.endsWith('/') ? to.startsWith(a) : to === a))) out.push(`${from} > ${to}`);
    }
  }
  return out.sort();
}

/** Names of the types and constants the contract exports (declared there or re-exported from the kernel). */
function contractNames(files: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const f of files) {
    const src = readFileSync(f, 'utf8');
    for (const m of src.matchAll(/^export (?:interface|type|const|function) (\w+)/gm)) names.add(m[1]!);
    for (const m of src.matchAll(/^export (?:type )?\{([^}]*)\} from/gm)) {
      for (const part of m[1]!.split(',')) {
        const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()!.trim();
        if (name) names.add(name);
      }
    }
  }
  return names;
}

/** `file: Name` for every declaration in `clientFiles` of a name the contract exports. */
function duplicates(clientFiles: readonly string[], names: Set<string>): string[] {
  const out: string[] = [];
  for (const f of clientFiles) {
    const src = readFileSync(f, 'utf8');
    for (const m of src.matchAll(/^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|const|enum)\s+(\w+)/gm)) {
      if (names.has(m[1]!)) out.push(`${relative(ROOT, f)}: ${m[1]}`);
    }
  }
  return out.sort();
}

describe('dependency rule', () => {
  const graph = importGraph();

  it('has no import against the rule table but the known ones', () => {
    const found = violations(graph);
    const why = found.map((v) => `${v} (${ruleFor(v.split(' > ')[0]!)?.why})`);
    expect(why.filter((_, i) => !KNOWN_VIOLATIONS.includes(found[i]!))).toEqual([]);
    expect(KNOWN_VIOLATIONS.filter((v) => !found.includes(v))).toEqual([]);
  });

  it('places every daemon file in a layer (a new folder must be added to the table)', () => {
    const daemonFiles = [...graph.keys()].map((f) => relative(ROOT, f)).filter((f) => f.startsWith('daemon/') && !f.startsWith('daemon/store/migrations/'));
    const unplaced = daemonFiles.filter((f) => !ruleFor(f) && !COMPOSITION.some((c) => (c.endsWith('/') ? f.startsWith(c) : f === c)));
    expect(unplaced).toEqual([]);
  });

  it('sees a violation when there is one (the table is read, the most specific rule wins)', () => {
    const at = (p: string) => `${ROOT}/${p}`;
    const demo = new Map([
      [at('cli/a.ts'), [at('daemon/store/x.ts'), at('daemon/contract/y.ts'), at('cli/b.ts')]],
      [at('daemon/contract/y.ts'), [at('daemon/kernel/k.ts'), at('daemon/errors.ts'), at('daemon/http/z.ts')]],
      [at('daemon/store/x.ts'), [at('daemon/http/z.ts')]],
    ]);
    expect(violations(demo)).toEqual(['cli/a.ts > daemon/store/x.ts', 'daemon/contract/y.ts > daemon/http/z.ts', 'daemon/store/x.ts > daemon/http/z.ts']);
    const nested: DependencyRule[] = [...RULES, { from: 'daemon/', allow: ['daemon/'], why: 'demo' }];
    expect(ruleFor('daemon/contract/y.ts', nested)?.from).toBe('daemon/contract/');
    expect(ruleFor('loadtest/bench/x.ts')?.from).toBe('loadtest/bench');
    expect(ruleFor('daemon/wiring/x.ts')).toBeUndefined();
  });
});

describe('wire contract', () => {
  const files = sourceFiles();
  const contract = files.filter((f) => relative(ROOT, f).startsWith('daemon/contract/'));
  const clients = files.filter((f) => WIRE_CLIENTS.some((c) => relative(ROOT, f).startsWith(c)));

  it('exports the wire types (the scan reads it at all)', () => {
    const names = contractNames(contract);
    for (const n of ['JobView', 'Preset', 'Alert', 'PortfolioOverview', 'WsStats', 'PriceUpdate', 'PublicUser', 'ALERT_TYPES', 'ERROR_CODES', 'MARKETS']) {
      expect(names, n).toContain(n);
    }
  });

  it('has no wire type written twice: nothing the contract exports is declared again by a client (cli/, loadtest/)', () => {
    expect(duplicates(clients, contractNames(contract))).toEqual([]);
  });
});
