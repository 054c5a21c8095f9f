/** `stockscreen admin users loadtest-grant|loadtest-list|loadtest-revoke`: time-limited load-test exemptions. */
import { InvalidArgumentError, type Command } from 'commander';
import { parseDuration } from '../../services/output/duration.js';
import { exemptionsTable, grantExemption, grantLine, listExemptions, revokeExemption } from '../../services/loadtest/loadtest-exemptions.js';
import { printTable } from '../../services/output/print-table.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

function durationArg(value: string): number {
  try {
    return parseDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Add the load-test exemption commands to the `admin users` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('loadtest-grant')
    .description('Exempt an account from tier and endpoint rate limits for a while, for load tests (admin only); it ends by itself')
    .argument('<user>', 'email or id of the account')
    .option('--for <time>', 'how long, e.g. 30m or 2h (at most 7 days)', durationArg, 3_600_000)
    .addHelpText('after', examples(['stockscreen admin users loadtest-grant me@example.com --for 2h', 'stockscreen admin users loadtest-grant me@example.com --for 30m --json']))
    .action(
      action(ctx, async (session, cmd) => {
        const res = await grantExemption(session, cmd.processedArgs[0] as string, cmd.opts<{ for: number }>().for);
        if (session.out.mode === 'json') return session.out.json(res.body);
        session.out.line(grantLine(res.data));
      }),
    );
  parent
    .command('loadtest-list')
    .description('List the load-test exemptions in force (admin only; piped: a header row, then email, tier, expires, left, granted by)')
    .addHelpText('after', examples(['stockscreen admin users loadtest-list', 'stockscreen admin users loadtest-list --json']))
    .action(
      action(ctx, async (session) => {
        const res = await listExemptions(session);
        printTable(session, res.body, exemptionsTable(res.data));
      }),
    );
  parent
    .command('loadtest-revoke')
    .description("End an account's load-test exemption now (admin only)")
    .argument('<user>', 'email or id of the account')
    .addHelpText('after', examples(['stockscreen admin users loadtest-revoke me@example.com']))
    .action(
      action(ctx, async (session, cmd) => {
        const ref = cmd.processedArgs[0] as string;
        await revokeExemption(session, ref);
        session.out.info(`${ref}: load-test exemption revoked; its requests count against its limits again`);
      }),
    );
}
