/** `stockscreen jobs list`: recent market-data jobs, newest first. */
import type { Command } from 'commander';
import { jobsTable } from '../../services/load/job-rows.js';
import { listJobs } from '../../services/load/jobs.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `list` to the `jobs` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List recent market-data jobs, newest first (admin only; piped: a header row, then ID TYPE STATE PHASE DONE ROWS_OK REJECTED CREATED FINISHED)')
    .option('--limit <n>', 'how many jobs', intArg(1, 200), 20)
    .addHelpText('after', examples(['stockscreen jobs list', 'stockscreen jobs list --limit 5 --json', "stockscreen jobs list | awk -F'\\t' '$3 == \"failed\"'"]))
    .action(
      action(ctx, async (session, cmd) => {
        const { limit } = cmd.opts<{ limit: number }>();
        const res = await listJobs(session, limit);
        printTable(session, res.body, jobsTable(res.data));
      }),
    );
}
