/** `stockscreen alerts list`: your alerts, filtered, one page at a time. */
import { Option, type Command } from 'commander';
import { ALERT_TYPES, type AlertType } from '../../../daemon/contract/alerts.js';
import type { PageMeta } from '../../../daemon/contract/envelope.js';
import { alertsTable, listAlerts } from '../../services/alerts/alerts.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { codeArg } from '../flag-parsers.js';
import { action, examples, intArg } from '../shared.js';

/** Add `list` to the `alerts` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List your alerts (piped: a header row, then rows of id, code, name, type, threshold, active, recurring, cooldown_s, fired, last fired, note)')
    .option('--code <code>', 'only alerts on this stock', codeArg)
    .addOption(new Option('--active', 'only active alerts').conflicts('inactive'))
    .addOption(new Option('--inactive', 'only inactive alerts (fired one-shot alerts, switched off)'))
    .addOption(new Option('--type <type>', 'only alerts of this type').choices(ALERT_TYPES))
    .option('--page <n>', 'page number, from 1', intArg(1, 1_000_000), 1)
    .option('--limit <n>', 'alerts per page (at most 500)', intArg(1, 500), 50)
    .addHelpText('after', examples(['stockscreen alerts list', 'stockscreen alerts list --code 005930 --active', 'stockscreen alerts list --type price_below --json', "stockscreen alerts list | awk -F'\\t' '$6 == \"yes\"'"]))
    .action(
      action(ctx, async (session, cmd) => {
        const o = cmd.opts<{ code?: string; active?: boolean; inactive?: boolean; type?: AlertType; page: number; limit: number }>();
        const active = o.active ? true : o.inactive ? false : undefined;
        const res = await listAlerts(session, { code: o.code, active, type: o.type, page: o.page, limit: o.limit });
        printTable(session, res.body, alertsTable(res.data, session.out.mode === 'tty'));
        const meta = (res.body as { meta?: Partial<PageMeta> }).meta;
        if (session.out.mode === 'tty' && meta?.total !== undefined && meta.total > res.data.length) {
          session.out.info(`page ${meta.page} of ${Math.max(1, meta.total_pages ?? 1)} (${meta.total} alerts)`);
        }
      }),
    );
}
