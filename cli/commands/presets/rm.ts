/** `stockscreen presets rm <name|id>`: delete a preset. */
import type { Command } from 'commander';
import { deletePreset } from '../../services/screening/presets.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `rm` to the `presets` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('rm')
    .description('Delete a preset (the API answers 204 with no body, so nothing is printed on stdout, with --json neither)')
    .argument('<preset>', 'name or id')
    .addHelpText('after', examples(['stockscreen presets rm cheap-quality', 'stockscreen presets rm 0b6e…-uuid']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string];
        const id = await deletePreset(session, ref);
        session.out.info(`deleted preset ${ref === id ? id : `"${ref}" (${id})`}`);
      }),
    );
}
