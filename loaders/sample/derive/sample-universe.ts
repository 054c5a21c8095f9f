/**
 * Regenerates `loaders/sample/universe-data.ts`, the sample market's listed universe, from the
 * real KRX files kept with the tests (a development-time step; the product never reads them):
 *
 *   npm run sample:universe            # reads test/fixtures/krx, rewrites loaders/sample/universe-data.ts
 *
 * What it takes: from the listing of the last day (`listing/<date>.csv`) each KOSPI/KOSDAQ issue's
 * code, name, market, board (소속부), shares outstanding, designation, last close (the level the
 * generated prices end near) and whether it was halted that day; from the descriptive listing
 * (`desc/<date>.csv`) its KSIC industry, listing date and settlement month (a preferred class takes
 * its common issue's); from the index files the composite closes of that day. English names: see
 * `english-names.ts`. Both files are parsed by the product's own loaders, so the data file holds
 * exactly what loading those files would store.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { universeText } from './universe-text.js';

/** The repository root (this file runs from dist/loaders/sample/derive/). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!readdirSync(dir).includes('package.json')) dir = dirname(dir);
  return dir;
}

/** Derive the universe data file and print what it holds. */
export function deriveUniverse(): void {
  const root = repoRoot();
  const out = join(root, 'loaders', 'sample', 'universe-data.ts');
  const derived = universeText(join(root, 'test', 'fixtures', 'krx'));
  writeFileSync(out, derived.text);
  process.stdout.write(`${out}: ${derived.issues} issues of ${derived.date}\n`);
  // SHOW=N lists the N largest issues with their English names, for review.
  for (const n of derived.names.slice(0, Number(process.env.SHOW ?? 0))) process.stdout.write(`${n.code}\t${n.name}\t${n.english}\n`);
}

// Run only as `npm run sample:universe`, never when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) deriveUniverse();
