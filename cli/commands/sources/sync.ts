/** `stockscreen sources sync <source> --from … [--to …] [--wait]`: backfill a source as a market-data job. */
import type { Command } from 'commander';
import { printJob, followAndPrint } from '../../services/load/load-job.js';
import { interruptSignal } from '../../services/session/interrupt.js';
import { syncSource } from '../../services/sources/sources.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Add `sync` to the `sources` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('sync')
    .description('Fetch a range of trading dates from a source, or the latest quarters of every listed company from OpenDART (admin only); each date or company commits on its own, an unchanged one writes nothing')
    .argument('<source>', 'source name: krx, fdr or dart')
    .option('--from <date>', 'first date, YYYY-MM-DD (default: --to)')
    .option('--to <date>', 'last date, YYYY-MM-DD (default: the last date the provider has published)')
    .option('--wait', 'follow the job with a progress bar until it finishes; exit 0 when it completes, 1 when it fails')
    .option('--no-compute', 'do not recompute indicators after the run')
    .option('--replace-sample', 'the database holds the generated sample market: remove it in the first date\'s transaction')
    .addHelpText('after', examples([
      'stockscreen sources sync krx --from 2024-01-01 --wait',
      'stockscreen sources sync krx --from 2026-03-09 --to 2026-03-20 --json',
      'stockscreen sources sync krx            # the last published date only',
      'stockscreen sources sync fdr --from 2026-03-09 --wait   # FinanceDataReader\'s KRX cache (STOCKSCREEN_FDR_CACHE_URL set)',
      'stockscreen sources sync dart --wait    # OpenDART: the four most recent quarters of every listed company, dated by receipt',
      'stockscreen sources sync dart --from 2024-01-01 --json  # and every quarter ending since',
    ]))
    .action(
      action(ctx, async (session, cmd) => {
        const [name] = cmd.processedArgs as [string];
        const opts = cmd.opts<{ from?: string; to?: string; wait?: boolean; compute: boolean; replaceSample?: boolean }>();
        for (const [flag, v] of [['--from', opts.from], ['--to', opts.to]] as const) {
          if (v !== undefined && !DATE.test(v)) {
            session.io.stderr.write(`${flag} must be a date YYYY-MM-DD\n`);
            return 1;
          }
        }
        const res = await syncSource(session, name, { from: opts.from, to: opts.to, compute: opts.compute, replace_sample: opts.replaceSample ?? false });
        if (!opts.wait) {
          printJob(session, res);
          if (session.out.mode !== 'json') session.out.info(`follow it with: stockscreen jobs show ${res.data.id} --follow`);
          return 0;
        }
        const interrupt = interruptSignal(session.io);
        try {
          return await followAndPrint(session, res.data.id, { signal: interrupt.signal });
        } finally {
          interrupt.release();
        }
      }),
    );
}
