/** Validation middleware: parses body/query/params with zod schemas into `req.valid`. */
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { parseOrThrow } from '../../validation.js';

/** Schemas for the parts of a request. */
export interface RequestSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
}

/**
 * Validates each given part; a failure becomes 400 INVALID_REQUEST with field-level details
 * (keyed by field name, e.g. `{ email: "Invalid email address" }`).
 */
export function validate(schemas: RequestSchemas): RequestHandler {
  return (req, _res, next) => {
    if (schemas.params) req.valid.params = parseOrThrow(schemas.params, req.params, '', 'Invalid path parameter');
    if (schemas.query) req.valid.query = parseOrThrow(schemas.query, req.query, '', 'Invalid query parameter');
    if (schemas.body) req.valid.body = parseOrThrow(schemas.body, req.body ?? {});
    next();
  };
}
