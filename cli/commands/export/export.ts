/** `stockscreen export <dir>`: the whole market as NDJSON in <dir>/market-<date>.ndjson. */
import type { Command } from 'commander';
import { exportMarket } from '../../services/market/market-export.js';
import { formatBytes, groupThousands } from '../../services/output/number-format.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `export` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('export')
    .description('Export the whole market (stocks, daily bars, halts, financials, index series) as NDJSON into <dir>/market-<date>.ndjson; `stockscreen load` reads it back (admin only). Prints the file path; --json: {file, lines, bytes}')
    .argument('<dir>', 'folder to write into (created when missing)')
    .addHelpText('after', examples(['stockscreen export ./backup', 'stockscreen export /srv/exports --json', 'stockscreen load "$(stockscreen export ./backup)"']))
    .action(
      action(ctx, async (session, cmd) => {
        const [dir] = cmd.processedArgs as [string];
        const outcome = await exportMarket(session, dir, process.cwd());
        if (session.out.mode === 'json') session.out.json(outcome);
        else session.out.line(outcome.file);
        session.out.info(`wrote ${groupThousands(outcome.lines)} lines (${formatBytes(outcome.bytes)}) to ${outcome.file}`);
      }),
    );
}
