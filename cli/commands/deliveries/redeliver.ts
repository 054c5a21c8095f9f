/** `stockscreen deliveries redeliver <id>`: send a delivered or dead delivery again (same id and body). */
import type { Command } from 'commander';
import { deliveryRecord, redeliver, resolveDeliveryId } from '../../services/notify/deliveries.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `redeliver` to the `deliveries` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('redeliver')
    .description('Send a delivered or dead delivery again, with the same webhook-id and body (piped: one row like `deliveries`)')
    .argument('<id>', 'delivery id or a unique prefix (from `stockscreen deliveries`)')
    .addHelpText('after', examples(['stockscreen deliveries redeliver 6f1c2a9e', 'stockscreen deliveries --failed --json | jq -r ".data[].id" | xargs -n1 stockscreen deliveries redeliver']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string];
        const res = await redeliver(session, await resolveDeliveryId(session, ref));
        session.out.record(res.body, deliveryRecord(res.data, session.out.mode === 'tty'));
        session.out.info(`delivery ${res.data.id} queued again`);
      }),
    );
}
