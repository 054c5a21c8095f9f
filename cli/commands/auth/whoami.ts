/** `stockscreen whoami`: the account behind the saved token. */
import type { Command } from 'commander';
import { whoami } from '../../services/account/account.js';
import { userRecord } from '../../services/account/user-rows.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `whoami` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('whoami')
    .description('Show the logged-in account (piped: one tab-separated row id, email, name, tier, role, created)')
    .addHelpText('after', examples(['stockscreen whoami', 'stockscreen whoami --json', 'stockscreen whoami | cut -f4     # the tier']))
    .action(
      action(ctx, async (session) => {
        const res = await whoami(session);
        session.out.record(res.body, userRecord(res.data));
      }),
    );
}
