/**
 * Paths to the real KRX test files (../shared/data/krx relative to the repo)
 * and to this suite's fixtures. Test-only; the product never reads these.
 */
import { fileURLToPath } from 'node:url';

/** /work/shared/data/krx, resolved from this file's location. */
export const KRX_DIR = fileURLToPath(new URL('../../../../shared/data/krx/', import.meta.url));

/** A file under the real KRX data folder. */
export function krxFile(relative: string): string {
  return `${KRX_DIR}${relative}`;
}

/** A file under test/fixtures/loaders. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/loaders/${name}`, import.meta.url));
}
