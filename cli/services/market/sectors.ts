/** Sector names on the command line: English or Korean in, the stored Korean name out. */
import { resolveSector, SECTOR_ENGLISH, SECTORS } from '../../../loaders/sectors.js';
import { usageError } from '../session/errors.js';
import type { TableData } from '../output/output.js';

/**
 * The stored sector name for `name` (Korean, or English as `stockscreen stocks sectors` lists it).
 * @throws CliError USAGE naming the command that lists them, for an unknown sector
 */
export function sectorArg(name: string): string {
  const found = resolveSector(name);
  if (!found) throw usageError(`unknown sector "${name}"`, 'list them with `stockscreen stocks sectors` (Korean or English names)');
  return found;
}

/** Every sector with its English name. */
export function sectorsTable(): TableData {
  return { headers: ['SECTOR', 'ENGLISH'], rows: SECTORS.map((s) => [s, SECTOR_ENGLISH[s]]) };
}
