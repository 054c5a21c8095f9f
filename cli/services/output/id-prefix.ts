/**
 * Short ids: terminal tables show the first 8 characters of a UUID, and commands accept
 * any unique prefix of at least 4 characters (like git and docker do), resolved against
 * the caller's own records.
 */
import { CliError, usageError } from '../session/errors.js';

/** Characters of an id shown in terminal tables. */
export const SHORT_ID_LENGTH = 8;
/** Shortest prefix accepted. */
export const MIN_PREFIX = 4;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a complete id (nothing to resolve). */
export function isFullId(ref: string): boolean {
  return UUID.test(ref);
}

/** The id as terminal tables show it. */
export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}

/**
 * The one id among `ids` that starts with `ref`.
 * @throws CliError USAGE for a prefix under 4 characters or one that matches several ids; NOT_FOUND when none matches
 */
export function matchIdPrefix(ref: string, ids: readonly string[], kind: string): string {
  const prefix = ref.trim().toLowerCase();
  if (prefix.length < MIN_PREFIX) throw usageError(`${kind} id "${ref}" is too short`, `give the id or at least its first ${MIN_PREFIX} characters`);
  const matches = ids.filter((id) => id.toLowerCase().startsWith(prefix));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw usageError(`"${ref}" matches ${matches.length} ${kind}s`, `give more characters: ${matches.slice(0, 3).join(', ')}`);
  throw new CliError({ code: 'NOT_FOUND', message: `no ${kind} id starts with "${ref}"` });
}
