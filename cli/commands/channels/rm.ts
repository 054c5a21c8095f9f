/** `stockscreen channels rm <channel...>`: delete channels. */
import type { Command } from 'commander';
import { deleteChannel, resolveChannelId } from '../../services/notify/channels.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `rm` to the `channels` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('rm')
    .description('Delete channels: alerts and digests stop using them, their delivery log goes with them (nothing is printed on stdout, even with --json)')
    .argument('<channels...>', 'channel ids, unique id prefixes or names')
    .addHelpText('after', examples(['stockscreen channels rm phone', 'stockscreen channels rm 6f1c2a9e 0b7d3c11']))
    .action(
      action(ctx, async (session, cmd) => {
        for (const ref of cmd.processedArgs[0] as string[]) {
          const id = await resolveChannelId(session, ref);
          await deleteChannel(session, id);
          session.out.info(`deleted channel ${id}`);
        }
      }),
    );
}
