/**
 * Market-data benchmark as a program: `npm run bench` runs the same steps
 * (bench/market-load.ts); this entry runs them alone, e.g. on PostgreSQL or at another size.
 *
 *   node dist/loadtest/bench-market.js [--stocks 2700] [--days 500] [--krx test/fixtures/krx] [--database-url postgres://…]
 */
import { parseArgs } from 'node:util';
import { marketRows, runMarketBench } from './bench/market-load.js';
import { formatReport } from './report.js';

export { runMarketBench, type MarketBenchResult } from './bench/market-load.js';

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/dist\//, '/dist/'));
const USAGE = `Usage: node dist/loadtest/bench-market.js [options]

Loads the built-in sample market (and, with --krx, a KRX folder) into a fresh store in this
process, computes the indicators, and prints load time, rows/s and the longest event-loop stall.

Options:
  --stocks N           sample stocks (default 2700)
  --days N             trading days per stock (default 500)
  --krx DIR            also load this KRX folder (e.g. test/fixtures/krx)
  --database-url URL   PostgreSQL instead of a temporary sqlite file (a schema is created and dropped)
  --per-batch          a transaction per batch (as loads ran before the one-transaction load job) instead of the load job's one transaction
  --json               print the figures as JSON
  -h, --help           this text

Examples:
  node dist/loadtest/bench-market.js --krx test/fixtures/krx
  node dist/loadtest/bench-market.js --stocks 2700 --days 260 --database-url postgres://127.0.0.1:5432/postgres
`;

/** Positive whole number of a flag, or an error naming it. */
function count(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0 (got "${raw}")`);
  return n;
}

if (isMain) {
  try {
    const { values } = parseArgs({
      options: {
        stocks: { type: 'string', default: '2700' }, days: { type: 'string', default: '500' }, krx: { type: 'string' },
        'database-url': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, 'per-batch': { type: 'boolean' },
      },
    });
    if (values.help) {
      process.stdout.write(USAGE);
    } else {
      const result = await runMarketBench({ stocks: count('stocks', values.stocks), days: count('days', values.days), krx: values.krx, databaseUrl: values['database-url'], atomic: !values['per-batch'] });
      if (values.json) console.log(JSON.stringify(result, null, 2));
      else {
        const now = new Date().toISOString();
        process.stdout.write(formatReport({ url: '(in process)', started_at: now, finished_at: now, aborted: false, pass: null, environment: { node: process.version, platform: process.platform, cpus: 0, memory_mb: 0, open_files_limit: null }, options: {}, scenarios: [], rows: marketRows(result), notes: [] }));
      }
    }
  } catch (err) {
    process.stderr.write(`bench-market: ${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 1;
  }
}
