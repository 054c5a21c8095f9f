/** `stockscreen daemon stop`: graceful shutdown of the daemon started by `daemon start`. */
import type { Command } from 'commander';
import { stopDaemon } from '../../services/daemon/daemon-process.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `stop` to the `daemon` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('stop')
    .description('Send SIGTERM to the daemon in the pid file and wait until it has shut down')
    .option('--timeout <seconds>', 'how long to wait for the exit', intArg(1, 600), 15)
    .option('--force', 'send SIGKILL if it is still running after the timeout')
    .addHelpText('after', examples(['stockscreen daemon stop', 'stockscreen daemon stop --timeout 60 --force']))
    .action(
      action(ctx, async (session, cmd) => {
        const opts = cmd.opts<{ timeout: number; force?: boolean }>();
        const result = await stopDaemon(session.paths, { timeoutMs: opts.timeout * 1000, force: opts.force });
        if (result.pid !== undefined) session.out.info(`Stopped stockscreend (pid ${result.pid})`);
        else session.out.info(result.stale ? 'stockscreend was not running (removed a stale pid file)' : 'stockscreend is not running');
      }),
    );
}
