/** `stockscreen logout`: revoke the tokens on the daemon and forget them. */
import type { Command } from 'commander';
import { logoutAccount } from '../../services/account/account.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `logout` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('logout')
    .description('Revoke the saved tokens on the daemon and delete them from this machine')
    .addHelpText('after', examples(['stockscreen logout', 'stockscreen --profile prod logout']))
    .action(
      action(ctx, async (session) => {
        const result = await logoutAccount(session);
        if (!result.wasLoggedIn) return void session.out.info(`Not logged in (profile ${session.profile}); nothing to do`);
        const note = result.revoked ? '' : ' (the daemon had already invalidated the tokens)';
        session.out.info(`Logged out ${result.email} (profile ${session.profile})${note}`);
      }),
    );
}
