/** `stockscreen deliveries`: the delivery log of your alerts, digests and tests. */
import { Option, type Command } from 'commander';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../../daemon/contract/notify.js';
import type { PageMeta } from '../../../daemon/contract/envelope.js';
import { resolveChannelId } from '../../services/notify/channels.js';
import { deliveriesTable, listDeliveries } from '../../services/notify/deliveries.js';
import { resolveAlertId } from '../../services/alerts/alerts.js';
import { pageNote, printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `deliveries` (the log; `deliveries redeliver` is its subcommand) to the program. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('deliveries')
    .description('The delivery log: each message to a channel with its attempts (piped: a header row, then rows of id, created, kind, channel, type, status, attempts, last code, last error, next attempt)')
    .option('--failed', 'only deliveries that failed: retrying or dead')
    .addOption(new Option('--status <status>', 'only deliveries in this state').choices(DELIVERY_STATUSES).conflicts('failed'))
    .option('--channel <channel>', 'only deliveries to this channel (id, prefix or name)')
    .option('--alert <alert>', 'only deliveries of this alert (id or prefix)')
    .option('--page <n>', 'page number, from 1', intArg(1, 1_000_000), 1)
    .option('--limit <n>', 'deliveries per page (at most 200)', intArg(1, 200), 50)
    .addHelpText('after', examples(['stockscreen deliveries', 'stockscreen deliveries --failed', 'stockscreen deliveries --channel phone --json', 'stockscreen deliveries redeliver 6f1c2a9e']))
    .action(
      action(ctx, async (session, cmd) => {
        const o = cmd.opts<{ failed?: boolean; status?: DeliveryStatus; channel?: string; alert?: string; page: number; limit: number }>();
        const res = await listDeliveries(session, {
          status: o.failed ? 'failed' : o.status,
          channel_id: o.channel ? await resolveChannelId(session, o.channel) : undefined,
          alert_id: o.alert ? await resolveAlertId(session, o.alert) : undefined,
          page: o.page, limit: o.limit,
        });
        printTable(session, res.body, deliveriesTable(res.data, session.out.mode === 'tty'));
        pageNote(session, (res.body as { meta?: Partial<PageMeta> }).meta, 'deliveries');
      }),
    );
}
