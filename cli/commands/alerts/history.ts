/** `stockscreen alerts history [<id>]`: when alerts fired, newest first. */
import type { Command } from 'commander';
import type { PageMeta } from '../../../daemon/contract/envelope.js';
import { alertHistory, firingsTable, resolveAlertId } from '../../services/alerts/alerts.js';
import type { CliContext } from '../context.js';
import { codeArg } from '../flag-parsers.js';
import { action, examples, intArg } from '../shared.js';

/** Add `history` to the `alerts` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('history')
    .description('Firings of one alert or of all your alerts, newest first (piped: rows of fired_at, alert id, code, type, threshold, price, message)')
    .argument('[id]', 'alert id or a unique prefix (default: all alerts)')
    .option('--code <code>', 'only firings on this stock (all alerts only)', codeArg)
    .option('--page <n>', 'page number, from 1', intArg(1, 1_000_000), 1)
    .option('--limit <n>', 'firings per page (at most 500)', intArg(1, 500), 50)
    .addHelpText('after', examples(['stockscreen alerts history', 'stockscreen alerts history 6f1c2a9e', 'stockscreen alerts history --code 005930 --json']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string | undefined];
        const o = cmd.opts<{ code?: string; page: number; limit: number }>();
        const res = await alertHistory(session, ref === undefined ? undefined : await resolveAlertId(session, ref), o);
        session.out.table(res.body, firingsTable(res.data, session.out.mode === 'tty'));
        const meta = (res.body as { meta?: Partial<PageMeta> }).meta;
        if (session.out.mode === 'tty' && meta?.total !== undefined && meta.total > res.data.length) {
          session.out.info(`page ${meta.page} of ${Math.max(1, meta.total_pages ?? 1)} (${meta.total} firings)`);
        }
      }),
    );
}
