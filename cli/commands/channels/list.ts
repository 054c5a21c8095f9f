/** `stockscreen channels list`: your notification channels. */
import type { Command } from 'commander';
import { channelsTable, listChannels } from '../../services/notify/channels.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `list` to the `channels` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List your notification channels (piped: a header row, then rows of id, type, name, target, enabled, disabled reason, created)')
    .addHelpText('after', examples(['stockscreen channels list', 'stockscreen channels list --json', "stockscreen channels list | awk -F'\\t' '$5 == \"no\"'   # switched off"]))
    .action(
      action(ctx, async (session) => {
        const res = await listChannels(session);
        printTable(session, res.body, channelsTable(res.data, session.out.mode === 'tty'));
      }),
    );
}
