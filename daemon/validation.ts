/**
 * zod → the spec's error envelope: every bad field listed in `details`
 * as `{ "<dotted.path>": "<problem>" }`. Shared by HTTP, WebSocket and domain parsers.
 */
import type { z } from 'zod';
import { invalidRequest, type AppError } from './errors.js';

/** At most this many fields are listed in a 400's details; the rest are counted. */
export const MAX_DETAILS = 50;

/** The key under which details count the problems left out after MAX_DETAILS. */
export const MORE_DETAILS_KEY = '_more';

/** Map zod issues to field-level details (first problem per field, at most MAX_DETAILS fields). */
export function zodDetails(error: z.ZodError, root = ''): Record<string, string | number> {
  const details: Record<string, string | number> = {};
  let listed = 0;
  let more = 0;
  const add = (key: string, message: string) => {
    if (key in details) return;
    if (listed >= MAX_DETAILS) return void more++;
    details[key] = message;
    listed++;
  };
  for (const issue of error.issues) {
    const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
    const key = [root, path].filter(Boolean).join('.') || root || '(body)';
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) add(key === '(body)' ? k : `${key}.${k}`, 'unknown field');
      continue;
    }
    add(key, issue.message);
  }
  if (more > 0) details[MORE_DETAILS_KEY] = more;
  return details;
}

/**
 * Parse `value` with `schema` or throw a 400 INVALID_REQUEST listing each bad field.
 * @throws AppError INVALID_REQUEST
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root = '', message?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(result.error, root, message);
}

/** Build the 400 for a zod error. */
export function validationError(error: z.ZodError, root = '', message = 'Request validation failed'): AppError {
  return invalidRequest(message, zodDetails(error, root));
}
