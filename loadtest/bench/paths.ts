/** Where the bench finds the repository (results go to loadtest/results/ there). */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root: the nearest folder above this file with a package.json. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** loadtest/results/<kind>-<start time>.json (kind '' for the main bench). */
export function resultsFile(kind: string, startedAt: Date): string {
  return join(packageRoot(), 'loadtest', 'results', `${kind ? `${kind}-` : ''}${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
}

/** Write `report` to `file` (creating loadtest/results/); returns the path. */
export async function saveResults(file: string, report: unknown): Promise<string> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(report, null, 2) + '\n');
  return file;
}
