/** `stockscreen screen fields`: the indicators screens can filter, sort and show. */
import type { Command } from 'commander';
import { printTable } from '../../services/output/print-table.js';
import { fieldsTable } from '../../services/screening/screen-rows.js';
import { listFields } from '../../services/screening/screen.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `fields` to the `screen` command. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('fields')
    .description('List every screenable indicator: id, category, unit, labels, how many stocks have a value, definition')
    .option('--category <name>', 'only this category (price, returns, trend, oscillator, volatility, volume, event, valuation, profitability, growth, score)')
    .addHelpText('after', examples(['stockscreen screen fields', 'stockscreen screen fields --category valuation', 'stockscreen screen fields | cut -f1 | tail -n +2     # just the ids']))
    .action(
      action(ctx, async (session, cmd) => {
        const { category } = cmd.opts<{ category?: string }>();
        const res = await listFields(session);
        const fields = category ? res.data.filter((f) => f.category === category.toLowerCase()) : res.data;
        printTable(session, res.body, fieldsTable(fields));
      }),
    );
}
