/**
 * zod → the spec's error envelope: every bad field listed in `details`
 * as `{ "<dotted.path>": "<problem>" }`. Shared by HTTP, WebSocket and domain parsers.
 */
import type { z } from 'zod';
import { invalidRequest, type AppError } from './errors.js';

/** Map zod issues to field-level details (first problem per field). */
export function zodDetails(error: z.ZodError, root = ''): Record<string, string> {
  const details: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
    const key = [root, path].filter(Boolean).join('.') || root || '(body)';
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) details[key === '(body)' ? k : `${key}.${k}`] ??= 'unknown field';
      continue;
    }
    details[key] ??= issue.message;
  }
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
