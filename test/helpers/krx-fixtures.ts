/**
 * The real KRX files shipped with the tests (test/fixtures/krx, origin and licence in its
 * README): the suite reads nothing outside the repository.
 */
import { fileURLToPath } from 'node:url';

/** The fixture folder, with a trailing slash (the layout of FinanceDataReader's KRX cache). */
export const KRX_DIR = fileURLToPath(new URL('../fixtures/krx/', import.meta.url));

/** A file under the KRX fixture folder, e.g. `listing/2026-03-20.csv`. */
export function krxFile(relative: string): string {
  return `${KRX_DIR}${relative}`;
}
