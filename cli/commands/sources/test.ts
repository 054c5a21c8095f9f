/** `stockscreen sources test <source>`: one call per service — does the key and each approval work. */
import type { Command } from 'commander';
import { checksTable, testSource } from '../../services/sources/sources.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `test` to the `sources` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('test')
    .description('Call each service of a source once and say which work (admin only; exit 1 when one fails; piped: a header row, then SERVICE OK CODE MESSAGE APPLY_FOR)')
    .argument('<source>', 'source name: krx, fdr, dart, or a registered feed such as kis')
    .addHelpText('after', examples(['stockscreen sources test krx', 'stockscreen sources test fdr', 'stockscreen sources test dart', 'stockscreen sources test krx --json | jq .data.checks']))
    .action(
      action(ctx, async (session, cmd) => {
        const [name] = cmd.processedArgs as [string];
        const res = await testSource(session, name);
        printTable(session, res.body, checksTable(res.data));
        if (res.data.ok) return 0;
        if (session.out.mode !== 'json') {
          for (const c of res.data.checks.filter((x) => !x.ok && x.apply_for)) session.io.stderr.write(`${c.service}: apply for "${c.apply_for}" with the provider\n`);
        }
        return 1;
      }),
    );
}
