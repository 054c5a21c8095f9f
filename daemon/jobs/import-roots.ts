/**
 * Server-side paths of load jobs are confined to the operator's import directories
 * (`import_dirs`; none by default, so path loads are off until a directory is named)
 * and to the daemon's own upload directory. A path is resolved with realpath, so a
 * symlink or `..` cannot lead out of a root, and checked before anything is read.
 *
 * A path outside every root gets the same answer whether it exists or not (no existence
 * oracle), and no answer ever carries a byte of the file.
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { invalidRequest, type AppError } from '../errors.js';

/** The answer for a path outside every root, existing or not. */
export const OUTSIDE_ROOTS = 'not found or not inside an import directory (import_dirs)';
/** The answer for every path when no import directory is configured. */
export const PATH_LOADS_OFF = 'loading server-side paths is off: the daemon has no import_dirs (upload the files with `stockscreen load FILE` instead)';

/** True when `path` (absolute, resolved) is `root` or lies under it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The real paths of the configured roots; roots that do not exist are left out (nothing
 * can be loaded from them).
 */
export async function realRoots(dirs: readonly string[]): Promise<string[]> {
  const roots = await Promise.all(dirs.map((d) => realpath(resolve(d)).catch(() => null)));
  return roots.filter((r): r is string => r !== null);
}

/**
 * Resolve `path` (absolute, or relative to the first root) to its real path inside one of
 * `roots`.
 * @throws AppError INVALID_REQUEST with `details[field]` = the reason: OUTSIDE_ROOTS for a
 *   path outside every root (existing or not), "not found" for a missing path inside one,
 *   PATH_LOADS_OFF when there are no roots.
 */
export async function resolveInsideRoots(path: string, roots: readonly string[], field = 'path'): Promise<string> {
  const refuse = (reason: string): AppError => invalidRequest(`${path}: ${reason}`, { [field]: reason });
  if (roots.length === 0) throw refuse(PATH_LOADS_OFF);
  if (path.includes('\0')) throw refuse(OUTSIDE_ROOTS);
  const lexical = resolve(roots[0]!, path);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw refuse((await missingInside(lexical, roots)) ? 'not found' : OUTSIDE_ROOTS);
  }
  if (!roots.some((r) => isInside(r, real))) throw refuse(OUTSIDE_ROOTS);
  return real;
}

/**
 * True when `path` is missing and its real parent lies inside a root: only then may the
 * caller learn "not found" (a dangling symlink or a parent leading out answer OUTSIDE_ROOTS).
 */
async function missingInside(path: string, roots: readonly string[]): Promise<boolean> {
  if (await lstat(path).then(() => true, () => false)) return false;
  const parent = await realpath(dirname(path)).catch(() => null);
  return parent !== null && roots.some((r) => isInside(r, parent));
}
