/**
 * Market-data benchmark as a program (issues 3 and 9): `npm run bench` runs the same steps
 * (bench/market-load.ts); this entry runs them alone, e.g. on PostgreSQL or at another size.
 *
 *   node dist/loadtest/bench-market.js [--stocks 2700] [--days 500] [--krx ../shared/data/krx] [--database-url postgres://…]
 */
import { parseArgs } from 'node:util';
import { marketRows, runMarketBench } from './bench/market-load.js';
import { formatReport } from './report.js';

export { runMarketBench, type MarketBenchResult } from './bench/market-load.js';

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/dist\//, '/dist/'));
if (isMain) {
  const { values } = parseArgs({ options: { stocks: { type: 'string', default: '2700' }, days: { type: 'string', default: '500' }, krx: { type: 'string' }, 'database-url': { type: 'string' }, json: { type: 'boolean' } } });
  const result = await runMarketBench({ stocks: Number(values.stocks), days: Number(values.days), krx: values.krx, databaseUrl: values['database-url'] });
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    const now = new Date().toISOString();
    process.stdout.write(formatReport({ url: '(in process)', started_at: now, finished_at: now, aborted: false, pass: null, environment: { node: process.version, platform: process.platform, cpus: 0, memory_mb: 0, open_files_limit: null }, options: {}, scenarios: [], rows: marketRows(result), notes: [] }));
  }
}
