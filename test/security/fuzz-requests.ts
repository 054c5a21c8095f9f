/**
 * A seeded generator of hostile HTTP requests for the routes of the daemon's route list:
 * values shaped by each route's OpenAPI schemas (so that many requests get past parsing)
 * mixed with values no schema expects (wrong types, huge or odd strings, deep nesting,
 * prototype keys), odd content types, malformed bodies, mangled paths and credentials.
 * Deterministic for a seed: a failure names the seed and the request index to replay.
 */

type Json = Record<string, any>;

/** A small, fast, seedable PRNG (mulberry32). */
export function createRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, chance: (p: number) => next() < p, pick: <T>(list: readonly T[]): T => list[int(list.length)]! };
}

/** The PRNG type. */
export type Random = ReturnType<typeof createRandom>;

/** One route as the route list gives it. */
export interface FuzzRoute {
  method: string;
  path: string;
  access: string;
}

/** What the generator knows of the world (ids and tokens to aim at). */
export interface FuzzWorld {
  ids: string[];
  codes: string[];
  tokens: Record<'user' | 'admin' | 'other', string>;
  /** The OpenAPI operation of a route (parameters and request body), if documented. */
  operation(route: FuzzRoute): Json | undefined;
  /** Resolve a `$ref` of the document. */
  resolve(schema: Json): Json;
}

/** A generated request. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const ODD_STRINGS = [
  '', ' ', '0', '-1', 'null', 'true', '[]', '{}', '__proto__', 'constructor', '../../etc/passwd', '%00', '\u0000', '\u202e', '😀'.repeat(40),
  "' OR 1=1 --", '"; DROP TABLE users; --', '<script>alert(1)</script>', '${7*7}', '{{7*7}}', '\\', '%', '%%32%65', 'a\nb', 'NaN', 'Infinity',
  '9'.repeat(400), '2025-02-30', '9999-12-31', '2025-01-02T25:61:00Z', '005930', '00593', 'ZZZZZZ', 'x@y', 'a'.repeat(300) + '@example.com',
];
const ODD_NUMBERS = [0, -1, 1, 0.5, -0.0, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 1e-320, 123456789012, 42];

function oddString(r: Random): string {
  if (r.chance(0.1)) return r.pick(['a', 'é', '\u0000', '😀', '%', '/']).repeat(1 + r.int(70_000));
  return r.pick(ODD_STRINGS);
}

/** A value no schema expects. */
export function hostileValue(r: Random, depth = 0): unknown {
  switch (r.int(9)) {
    case 0: return null;
    case 1: return r.chance(0.5);
    case 2: return r.pick(ODD_NUMBERS);
    case 3: return oddString(r);
    case 4:
      if (r.chance(0.1)) return Array.from({ length: 5000 }, () => r.pick(ODD_NUMBERS));
      return depth > 3 ? [] : Array.from({ length: r.int(4) }, () => hostileValue(r, depth + 1));
    case 5: return depth > 3 ? {} : { ['__proto__']: { admin: true }, constructor: { prototype: 1 }, [oddString(r).slice(0, 50)]: hostileValue(r, depth + 1) };
    case 6: return nested(r.int(200));
    case 7: return String(r.pick(ODD_NUMBERS));
    default: return {};
  }
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** A value shaped by `schema` (resolved), sometimes hostile instead. */
export function valueFor(schema: Json | undefined, world: FuzzWorld, r: Random, depth = 0): unknown {
  if (!schema || r.chance(depth === 0 ? 0.1 : 0.2)) return hostileValue(r, depth);
  const s = world.resolve(schema);
  const options = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (options?.length) return valueFor(r.pick(options), world, r, depth);
  if (s.enum) return r.pick(s.enum as unknown[]);
  if (s.const !== undefined) return s.const;
  const type = ([] as string[]).concat(s.type ?? 'object').filter((t) => t !== 'null');
  switch (r.pick(type.length ? type : ['object'])) {
    case 'string': return plausibleString(s, world, r);
    case 'integer': return r.chance(0.7) ? r.int(1000) : r.pick(ODD_NUMBERS);
    case 'number': return r.chance(0.7) ? r.next() * 20_000 : r.pick(ODD_NUMBERS);
    case 'boolean': return r.chance(0.5);
    case 'array': return Array.from({ length: r.int(4) }, () => valueFor(s.items as Json, world, r, depth + 1));
    default: return objectFor(s, world, r, depth);
  }
}

function plausibleString(s: Json, world: FuzzWorld, r: Random): string {
  if (r.chance(0.3)) return oddString(r);
  if (s.format === 'uuid') return r.pick(world.ids);
  if (s.format === 'email') return `f${r.int(1e6)}@example.com`;
  if (s.format === 'date' || /\\d\{4\}/.test(String(s.pattern ?? ''))) return `20${10 + r.int(20)}-0${1 + r.int(9)}-${10 + r.int(20)}`;
  if (/\[0-9A-Z\]\{6\}/.test(String(s.pattern ?? ''))) return r.pick(world.codes);
  return r.pick(['KOSPI', 'KOSDAQ', 'price_above', 'buy', 'value', 'per < 10', 'close', 'Tech', 'correct horse battery', 'f@example.com']);
}

function objectFor(s: Json, world: FuzzWorld, r: Random, depth: number): Json {
  const out: Json = {};
  for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
    if (r.chance(((s.required as string[] | undefined) ?? []).includes(key) ? 0.9 : 0.5)) out[key] = valueFor(sub, world, r, depth + 1);
  }
  if (r.chance(0.1)) out[oddString(r).slice(0, 40) || 'extra'] = hostileValue(r, depth + 1);
  return out;
}

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1'];
const RAW_BODIES = ['{', '[1,2', '{"a":}', 'null', '42', '"text"', '[]', '\u0000', '{"__proto__":{"x":1}}', 'a=1&b=2', '<x/>', '{"a":1,"a":2}', '\uFEFF{}', '{"email":"\uD800"}'];

function fillPath(route: FuzzRoute, world: FuzzWorld, r: Random): string {
  let path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    if (r.chance(0.25)) return encodeURIComponent(oddString(r).slice(0, 2000));
    if (name === 'code') return r.pick(world.codes);
    if (name === 'template') return r.pick(['value', 'growth', 'nope', '..']);
    return r.pick(world.ids);
  });
  if (path.startsWith('/api/v1') && r.chance(0.4)) path = path.replace('/api/v1', '/v1');
  if (r.chance(0.05)) path += r.pick(['/', '//', '/..', '%2f..', '/x']);
  return path;
}

function queryFor(op: Json | undefined, world: FuzzWorld, r: Random): string {
  const params = new URLSearchParams();
  for (const p of ((op?.parameters ?? []) as Json[]).filter((p) => p.in === 'query')) {
    if (!r.chance(0.5)) continue;
    const v = valueFor(p.schema as Json, world, r, 1);
    params.append(String(p.name), typeof v === 'string' ? v.slice(0, 5000) : JSON.stringify(v)?.slice(0, 5000) ?? '');
  }
  if (r.chance(0.1)) params.append(r.pick(['page', 'limit', 'x', '__proto__', 'sort']), oddString(r).slice(0, 3000));
  if (r.chance(0.05)) params.append('page', '1'), params.append('page', '2');
  const q = params.toString();
  return q ? `?${q}` : '';
}

function credentials(route: FuzzRoute, world: FuzzWorld, r: Random): Record<string, string> {
  const wanted = route.access === 'admin' ? world.tokens.admin : world.tokens.user;
  const token = r.chance(0.75) ? wanted : r.pick([world.tokens.other, world.tokens.admin, '', 'garbage', 'a.b.c', `${wanted}x`]);
  if (!token) return {};
  return { authorization: r.chance(0.95) ? `Bearer ${token}` : r.pick([token, `Basic ${token}`, `Bearer  ${token} extra`, 'Bearer']) };
}

/** Generate one request for a route. */
export function generateRequest(route: FuzzRoute, world: FuzzWorld, r: Random): FuzzRequest {
  const op = world.operation(route);
  const headers: Record<string, string> = { ...credentials(route, world, r) };
  if (r.chance(0.05)) headers['x-forwarded-for'] = oddString(r).slice(0, 200).replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '');
  if (r.chance(0.05)) headers.accept = r.pick(['text/html', 'application/xml', '*/*', 'text/csv']);
  const request: FuzzRequest = { method: route.method.toUpperCase(), path: fillPath(route, world, r) + queryFor(op, world, r), headers };
  const bodySchema = op?.requestBody?.content?.['application/json']?.schema as Json | undefined;
  if (!bodySchema && !r.chance(0.1)) return request;
  headers['content-type'] = r.chance(0.8) ? 'application/json' : r.pick(CONTENT_TYPES);
  request.body = r.chance(0.15) ? r.pick(RAW_BODIES) : (JSON.stringify(valueFor(bodySchema, world, r)) ?? 'null');
  if (r.chance(0.01)) request.body = JSON.stringify({ big: 'x'.repeat(1_100_000) });
  if (r.chance(0.05)) delete headers['content-type'];
  // fetch sends no body with GET
  if (request.method === 'GET') delete request.body;
  return request;
}
