/** `stockscreen register`: create an account. */
import type { Command } from 'commander';
import { registerAccount } from '../../services/account/account.js';
import { collectLogin } from '../../services/account/login-input.js';
import { userRecord } from '../../services/account/user-rows.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

/** Add `register` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('register')
    .description('Create an account on the daemon (prints the new user: id, email, name, tier, role, created)')
    .option('--email <email>', 'account email (prompted on a terminal)')
    .option('--name <name>', 'display name')
    .option('--password-stdin', 'read the password from stdin instead of prompting')
    .addHelpText(
      'after',
      examples([
        'stockscreen register                       # prompts for email and password',
        'printf %s "$PW" | stockscreen register --email me@example.com --name Me --password-stdin',
      ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const opts = cmd.opts<{ email?: string; name?: string; passwordStdin?: boolean }>();
        const { email, password } = await collectLogin(session, opts, { command: 'register', confirm: true });
        const res = await registerAccount(session, { email, password, name: opts.name });
        session.out.record(res.body, userRecord(res.data));
        session.out.info(`Registered ${res.data.email} at ${session.baseUrl}; log in with \`stockscreen login --email ${res.data.email}\``);
      }),
    );
}
