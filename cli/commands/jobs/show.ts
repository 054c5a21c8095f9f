/** `stockscreen jobs show <id>`: one job's state, progress, result and failure reason. */
import type { Command } from 'commander';
import { jobWarnings } from '../../services/load/job-rows.js';
import { interruptSignal } from '../../services/session/interrupt.js';
import { getJob } from '../../services/load/jobs.js';
import { followAndPrint, printJob } from '../../services/load/load-job.js';
import type { CliContext } from '../context.js';
import { retryForOption } from '../flag-parsers.js';
import { action, examples } from '../shared.js';

/** Add `show` to the `jobs` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('show')
    .description('Show one job (admin only; piped: one TSV row id, type, state, phase, rows_ok, rows_rejected, indicators, duration_ms, created, finished, request, failed_reason)')
.argument('<id>', 'job id, as printed by `stockscreen load` or `jobs list`')
    .option('--follow', 'follow the job with a progress bar until it finishes; exit 0 when it completes, 1 when it fails')
    .addOption(retryForOption())
    .addHelpText('after', examples(['stockscreen jobs show 12', 'stockscreen jobs show 12 --follow', 'stockscreen jobs show 12 --json | jq .data.result.files', 'stockscreen jobs show 12 | cut -f3     # the state']))
    .action(
      action(ctx, async (session, cmd) => {
        const [id] = cmd.processedArgs as [string];
        const opts = cmd.opts<{ follow?: boolean; retryFor: number }>();
        if (opts.follow) {
          const interrupt = interruptSignal(session.io);
          try {
            return await followAndPrint(session, id, { signal: interrupt.signal, retryForMs: opts.retryFor });
          } finally {
            interrupt.release();
          }
        }
        const res = await getJob(session, id);
        printJob(session, res);
        if (session.out.mode !== 'json') for (const line of jobWarnings(res.data)) session.out.info(line);
      }),
    );
}
