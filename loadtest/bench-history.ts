/**
 * `npm run bench:history` (node dist/loadtest/bench-history.js): the as-of screen and backtest figures alone — load
 * a sample market into a temp dir (BENCH_HISTORY_STOCKS, default 2,700; BENCH_HISTORY_DAYS,
 * default 520: two years and a bit), then time the history read, as-of screens cold and warm,
 * and template backtests (see bench/history-timing.ts). Prints the rows as a table.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyRows } from './bench/history-timing.js';
import { runMarketBench } from './bench/market-load.js';

const stocks = Number(process.env.BENCH_HISTORY_STOCKS ?? 2700);
const days = Number(process.env.BENCH_HISTORY_DAYS ?? 520);
const dir = await mkdtemp(join(tmpdir(), 'stockscreen-bench-history-'));
try {
  process.stderr.write(`loading the sample market (${stocks} stocks × ${days} days) into ${dir}\n`);
  await runMarketBench({ stocks, days, seed: 42, sampleDataDir: dir });
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  process.stderr.write(`load average before the timed steps: ${load()}\n`);
  const rows = await historyRows(dir, { warmIterations: Number(process.env.BENCH_HISTORY_WARM ?? 200), template: process.env.BENCH_HISTORY_TEMPLATE });
  for (const r of rows) {
    const target = r.target ? `${r.target.op} ${r.target.value}` : '';
    const verdict = r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL';
    process.stdout.write(`${r.metric.padEnd(34)} ${String(Math.round((r.measured ?? NaN) * 1000) / 1000).padStart(10)} ${r.unit.padEnd(3)} ${target.padEnd(7)} ${verdict.padEnd(5)} ${r.note ?? ''}\n`);
  }
  process.stdout.write(`load average (1, 5, 15 min) after: ${load()}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
