/**
 * Paths to the real KRX test files (test/fixtures/krx) and to this suite's loader fixtures.
 * Test-only; the product never reads these.
 */
import { fileURLToPath } from 'node:url';

export { KRX_DIR, krxFile } from '../../helpers/krx-fixtures.js';

/** A file under test/fixtures/loaders. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/loaders/${name}`, import.meta.url));
}
