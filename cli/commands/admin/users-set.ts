/** `stockscreen admin users set-tier|set-role <email|id> <value>`: change one field of an account. */
import { Argument, type Command } from 'commander';
import { type AdminUserPatch, ROLES, TIERS } from '../../../daemon/contract/users.js';
import { userRecord } from '../../services/account/user-rows.js';
import { updateUser } from '../../services/account/users-admin.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

function registerSetter(parent: Command, ctx: CliContext, field: keyof AdminUserPatch, choices: readonly string[], sample: string): void {
  parent
    .command(`set-${field}`)
    .description(`Change an account's ${field} (admin only); the account is named by email or id`)
    .addArgument(new Argument('<user>', 'email or id of the account'))
    .addArgument(new Argument(`<${field}>`, `new ${field}`).choices(choices))
    .addHelpText('after', examples([`stockscreen admin users set-${field} bob@example.com ${sample}`, `stockscreen admin users set-${field} 3f1c…-uuid ${sample} --json`]))
    .action(
      action(ctx, async (session, cmd) => {
        const [user, value] = cmd.processedArgs as [string, string];
        const res = await updateUser(session, user, { [field]: value });
        session.out.record(res.body, userRecord(res.data));
        session.out.info(`${res.data.email}: ${field} is now ${res.data[field]}`);
      }),
    );
}

/** Add `set-tier` and `set-role` to the `admin users` group. */
export function register(parent: Command, ctx: CliContext): void {
  registerSetter(parent, ctx, 'tier', TIERS, 'pro');
  registerSetter(parent, ctx, 'role', ROLES, 'admin');
}
