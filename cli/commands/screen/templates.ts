/** `stockscreen screen templates`: the predefined screens. */
import type { Command } from 'commander';
import { printTable } from '../../services/output/print-table.js';
import { templatesTable } from '../../services/screening/screen-rows.js';
import { listTemplates } from '../../services/screening/screen.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `templates` to the `screen` command. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('templates')
    .description('List the predefined screens (MISSING names inputs no loaded stock has, e.g. financial statements)')
    .addHelpText('after', examples(['stockscreen screen templates', 'stockscreen screen templates --json | jq ".data[].query"', 'stockscreen screen --template momentum --limit 10']))
    .action(
      action(ctx, async (session) => {
        const res = await listTemplates(session);
        printTable(session, res.body, templatesTable(res.data));
      }),
    );
}
