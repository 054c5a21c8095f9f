/** `stockscreen login`: log in and save the tokens under the profile. */
import type { Command } from 'commander';
import { loginAccount } from '../../services/account/account.js';
import { collectLogin } from '../../services/account/login-input.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `login` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('login')
    .description('Log in; the tokens are saved per profile under $XDG_CONFIG_HOME/stockscreen (mode 0600) and refreshed automatically')
    .option('--email <email>', 'account email (prompted on a terminal)')
    .option('--password-stdin', 'read the password from stdin (needed when not on a terminal)')
    .addHelpText(
      'after',
      examples([
        'stockscreen login                          # prompts on a terminal',
        'printf %s "$PW" | stockscreen login --email me@example.com --password-stdin',
        'stockscreen --url http://10.0.0.5:8000 --profile prod login',
      ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const { email, password } = await collectLogin(session, cmd.opts<{ email?: string; passwordStdin?: boolean }>(), { command: 'login' });
        const res = await loginAccount(session, { email, password });
        if (session.out.mode === 'json') session.out.json(res.body);
        session.out.info(`Logged in to ${session.baseUrl} as ${email.trim().toLowerCase()} (profile ${session.profile})`);
      }),
    );
}
