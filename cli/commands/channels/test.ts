/** `stockscreen channels test <channel>`: send a test message now and say how it went. */
import type { Command } from 'commander';
import { resolveChannelId, testChannel } from '../../services/notify/channels.js';
import { deliveryRecord } from '../../services/notify/deliveries.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `test` to the `channels` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('test')
    .description('Send a test message now (one attempt, logged; exit 1 when it was not delivered)')
    .argument('<channel>', 'channel id, unique id prefix or name')
    .addHelpText('after', examples(['stockscreen channels test phone', 'stockscreen channels test 6f1c2a9e --json']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string];
        const res = await testChannel(session, await resolveChannelId(session, ref));
        session.out.record(res.body, deliveryRecord(res.data, session.out.mode === 'tty'));
        if (res.data.status === 'delivered') return session.out.info(`test message delivered (${res.data.attempts[0]?.status_code ?? '-'})`);
        session.io.stderr.write(`test message not delivered: ${res.data.last_error ?? res.data.status}\n`);
        return 1;
      }),
    );
}
