/** `stockscreen presets run <name|id>`: run a saved preset (output as `stockscreen screen`). */
import type { Command } from 'commander';
import { printScreen, screenTarget } from '../../services/screening/screen-run.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `run` to the `presets` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('run')
    .description('Run a preset: a table on a terminal, a header row plus TSV when piped, --csv for every match')
    .argument('<preset>', 'name or id')
    .option('--limit <n>', 'rows per page, at most 500', intArg(1, 500))
    .option('--page <n>', 'page number, from 1', intArg(1, 1_000_000))
    .option('--csv', 'every match as CSV from the server')
    .addHelpText('after', examples(['stockscreen presets run cheap-quality', 'stockscreen presets run cheap-quality --page 2', 'stockscreen presets run cheap-quality --csv > picks.csv']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string];
        const opts = cmd.opts<{ limit?: number; page?: number; csv?: boolean }>();
        await printScreen(session, await screenTarget(session, { preset: ref, ...opts }), opts.csv === true);
      }),
    );
}
