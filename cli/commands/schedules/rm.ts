/** `stockscreen schedules rm <id...>`: delete digest schedules. */
import type { Command } from 'commander';
import { deleteSchedule } from '../../services/notify/deliveries.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `rm` to the `schedules` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('rm')
    .description('Delete digest schedules (nothing is printed on stdout, even with --json)')
    .argument('<ids...>', 'schedule ids or unique prefixes (from `stockscreen schedules list`)')
    .addHelpText('after', examples(['stockscreen schedules rm 6f1c2a9e']))
    .action(
      action(ctx, async (session, cmd) => {
        for (const ref of cmd.processedArgs[0] as string[]) session.out.info(`deleted schedule ${await deleteSchedule(session, ref)}`);
      }),
    );
}
