/**
 * Walks the request schemas of the daemon's OpenAPI document (bodies, query, path
 * parameters) and lists every string without a maximum length and every array or map
 * without a maximum size: the document is generated from the same zod schemas that
 * validate requests, so a bound shown here is a bound enforced.
 */

type Json = Record<string, unknown>;

/** One unbounded field: where, and what is missing. */
export interface Unbounded {
  route: string;
  field: string;
  problem: string;
}

/** The request schemas of one operation, with their location names. */
function requestSchemas(op: Json): [string, Json][] {
  const out: [string, Json][] = [];
  for (const p of (op.parameters as Json[] | undefined) ?? []) out.push([`${String(p.in)}.${String(p.name)}`, (p.schema as Json) ?? {}]);
  const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
  for (const media of Object.values(body ?? {})) out.push(['body', (media.schema as Json) ?? {}]);
  return out;
}

/** Every unbounded string, array and map in the request schemas of `doc`. */
export function unboundedRequestFields(doc: Json): Unbounded[] {
  const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const found: Unbounded[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      const route = `${method.toUpperCase()} ${path}`;
      for (const [where, schema] of requestSchemas(op as Json)) walk(schema, where, (field, problem) => found.push({ route, field, problem }), components, new Set());
    }
  }
  return found;
}

/**
 * A string's length is documented by maxLength, by a fixed set of values, by the uuid
 * format (36 characters), or by an anchored pattern without unbounded repetition
 * (`^[a-z0-9-]{1,64}$`).
 */
function boundedString(schema: Json): boolean {
  if (typeof schema.maxLength === 'number' || schema.enum !== undefined || schema.const !== undefined || schema.format === 'uuid') return true;
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : '';
  return /^\^.*\$$/.test(pattern) && !/[*+]|\{\d+,\}/.test(pattern.replace(/\\./g, ''));
}

function walk(schema: Json, field: string, report: (field: string, problem: string) => void, components: Record<string, Json>, seen: Set<string>): void {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    if (seen.has(name)) return;
    return walk(components[name] ?? {}, field, report, components, new Set([...seen, name]));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const [i, sub] of ((schema[key] as Json[] | undefined) ?? []).entries()) walk(sub, `${field}<${i}>`, report, components, seen);
  }
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('string') && !boundedString(schema)) report(field, 'string without maxLength');
  if (types.includes('array')) {
    if (typeof schema.maxItems !== 'number') report(field, 'array without maxItems');
    if (schema.items) walk(schema.items as Json, `${field}[]`, report, components, seen);
  }
  if (types.includes('object') || schema.properties) {
    for (const [name, sub] of Object.entries((schema.properties as Record<string, Json> | undefined) ?? {})) walk(sub, `${field}.${name}`, report, components, seen);
    const extra = schema.additionalProperties;
    if (extra && typeof extra === 'object') {
      if (typeof schema.maxProperties !== 'number') report(field, 'map without maxProperties');
      walk(extra as Json, `${field}.*`, report, components, seen);
    }
    const names = schema.propertyNames as Json | undefined;
    if (extra && typeof extra === 'object' && names) walk(names, `${field}(key)`, report, components, seen);
  }
}
