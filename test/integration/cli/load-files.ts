/** Small helpers of the CLI load tests: TSV output and OHLCV history files. */

/** TSV text → rows of cells (the trailing newline dropped). */
export const tsv = (text: string): string[][] => text.trimEnd().split('\n').map((line) => line.split('\t'));

/** An OHLCV history file: one good bar per trading day, except the rows listed in `bad` (0-based) where high < open. */
export function ohlcv(days: string[], bad: number[]): string {
  const rows = days.map((d, i) => (bad.includes(i) ? `${d},100,90,80,95,1000` : `${d},100,110,90,105,1000`));
  return ['Date,Open,High,Low,Close,Volume', ...rows].join('\n') + '\n';
}
