/** `stockscreen portfolio rm <id>`: delete holdings. */
import type { Command } from 'commander';
import { removeHolding, resolveHoldingId } from '../../services/portfolio/portfolio.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `rm` to the `portfolio` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('rm')
    .description('Delete holdings (the API answers 204: nothing is printed on stdout, even with --json)')
    .argument('<ids...>', 'holding ids or unique prefixes of at least 4 characters (first column of `stockscreen portfolio show`)')
    .addHelpText('after', examples(['stockscreen portfolio rm 0b6e21f4', "stockscreen portfolio show | awk -F'\\t' '$2 == \"005930\" {print $1}' | xargs stockscreen portfolio rm"]))
    .action(
      action(ctx, async (session, cmd) => {
        for (const ref of cmd.processedArgs[0] as string[]) {
          const id = await resolveHoldingId(session, ref);
          await removeHolding(session, id);
          session.out.info(`deleted holding ${id}`);
        }
      }),
    );
}
