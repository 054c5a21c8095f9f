/** Validation middleware: parses params, query and body into `req.valid`, once per request. */
import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';
import { parseOrThrow } from '../../validation.js';

/** Schemas for the parts of a request, and an optional body parser that replaces the body schema. */
export interface RequestSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  parseBody?: (body: unknown, req: Request) => unknown;
}

/**
 * Validates each given part; a failure becomes 400 INVALID_REQUEST with field-level details
 * (keyed by field name, e.g. `{ email: "Invalid email address" }`). A missing body is `{}`.
 */
export function validate(schemas: RequestSchemas): RequestHandler {
  return (req, _res, next) => {
    if (schemas.params) req.valid.params = parseOrThrow(schemas.params, req.params, '', 'Invalid path parameter');
    if (schemas.query) req.valid.query = parseOrThrow(schemas.query, req.query, '', 'Invalid query parameter');
    const body: unknown = req.body ?? {};
    if (schemas.parseBody) {
      const parsed = schemas.parseBody(body, req);
      if (!(parsed instanceof Promise)) {
        req.valid.body = parsed;
        return next();
      }
      parsed.then((value) => {
        req.valid.body = value;
        next();
      }, next);
      return;
    }
    if (schemas.body) req.valid.body = parseOrThrow(schemas.body, body);
    next();
  };
}
