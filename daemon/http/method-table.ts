/**
 * Which methods each registered path answers, for the two answers express does not give in
 * the spec's shape: OPTIONS (204 with `Allow`) and a known path asked with another method
 * (405 with `Allow`). Consulted only for those requests, never on the normal path.
 */
import type { RequestHandler } from 'express';
import { errorBody } from './envelope.js';

/** Registered paths and their methods. */
export interface MethodTable {
  /** Record that `path` (express syntax) answers `method`. */
  add(path: string, method: string): void;
  /** The methods `path` answers (GET implies HEAD), or an empty set. */
  allowed(path: string): Set<string>;
}

/** Express-like matching: case-insensitive, optional trailing slash, `:p` = one segment. */
function templatePattern(path: string): RegExp {
  const body = path
    .replace(/\/+$/, '')
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`, 'i');
}

/** Create an empty method table. */
export function createMethodTable(): MethodTable {
  const entries = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  return {
    add(path, method) {
      let entry = entries.get(path);
      if (!entry) entries.set(path, (entry = { pattern: templatePattern(path), methods: new Set() }));
      entry.methods.add(method.toUpperCase());
      // Express answers HEAD with the GET handler.
      if (method.toLowerCase() === 'get') entry.methods.add('HEAD');
    },
    allowed(path) {
      const found = new Set<string>();
      // Several templates may match one URL (`/stocks/:code` and `/stocks/search`): unite them.
      for (const { pattern, methods } of entries.values()) if (pattern.test(path)) for (const m of methods) found.add(m);
      return found;
    },
  };
}

/** `Allow` header value for a set of methods (OPTIONS always included). */
function allowHeader(methods: Set<string>): string {
  return [...methods, 'OPTIONS'].sort().join(', ');
}

/**
 * Mounted before a router: answers OPTIONS for a known path with 204 and `Allow` (instead of
 * express's automatic `200 text/plain`); every other request passes straight on.
 */
export function optionsResponder(table: MethodTable): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const methods = table.allowed(req.path);
    if (methods.size === 0) return next();
    res.setHeader('Allow', allowHeader(methods));
    res.status(204).end();
  };
}

/** Mounted after a router: a known path asked with a method it does not answer gets 405 with `Allow`. */
export function methodNotAllowed(table: MethodTable): RequestHandler {
  return (req, res, next) => {
    const methods = table.allowed(req.path);
    if (methods.size === 0 || methods.has(req.method)) return next();
    res.setHeader('Allow', allowHeader(methods));
    res.status(405).json(errorBody(req, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; use ${[...methods].sort().join(', ')}`, { method: req.method, allowed: [...methods].sort() }));
  };
}
