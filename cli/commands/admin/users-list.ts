/** `stockscreen admin users list`: accounts, one page at a time. */
import type { Command } from 'commander';
import type { PageMeta } from '../../../daemon/contract/envelope.js';
import { usersTable } from '../../services/account/user-rows.js';
import { listUsers } from '../../services/account/users-admin.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `list` to the `admin users` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('list')
    .description('List accounts (admin only; piped: rows of id, email, name, tier, role, created)')
    .option('--page <n>', 'page number, from 1', intArg(1, 1_000_000), 1)
    .option('--limit <n>', 'accounts per page (at most 500)', intArg(1, 500), 50)
    .addHelpText('after', examples(['stockscreen admin users list', 'stockscreen admin users list --limit 500 --page 2', "stockscreen admin users list | awk -F'\\t' '$4 == \"pro\"'"]))
    .action(
      action(ctx, async (session, cmd) => {
        const opts = cmd.opts<{ page: number; limit: number }>();
        const res = await listUsers(session, opts);
        session.out.table(res.body, usersTable(res.data));
        const meta = (res.body as { meta?: Partial<PageMeta> }).meta;
        if (session.out.mode === 'tty' && meta?.total !== undefined) {
          session.out.info(`page ${meta.page} of ${Math.max(1, meta.total_pages ?? 1)} (${meta.total} accounts)`);
        }
      }),
    );
}
