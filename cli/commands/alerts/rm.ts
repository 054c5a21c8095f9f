/** `stockscreen alerts rm <id>`: delete an alert (its firing history is kept). */
import type { Command } from 'commander';
import { deleteAlert, resolveAlertId } from '../../services/alerts/alerts.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `rm` to the `alerts` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('rm')
    .description('Delete alerts (the API answers 204: nothing is printed on stdout, even with --json)')
    .argument('<ids...>', 'alert ids or unique prefixes of at least 4 characters (from `stockscreen alerts list`)')
    .addHelpText('after', examples(['stockscreen alerts rm 6f1c2a9e', "stockscreen alerts list --inactive | cut -f1 | xargs stockscreen alerts rm"]))
    .action(
      action(ctx, async (session, cmd) => {
        for (const ref of cmd.processedArgs[0] as string[]) {
          const id = await resolveAlertId(session, ref);
          await deleteAlert(session, id);
          session.out.info(`deleted alert ${id}`);
        }
      }),
    );
}
