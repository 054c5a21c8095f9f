/** `stockscreen daemon stop`: graceful shutdown of the daemon on this URL, whichever command started it. */
import type { Command } from 'commander';
import { answersHealth, stopDaemon } from '../../services/daemon/daemon-process.js';
import { controlUrl, findDaemon } from '../../services/daemon/daemon-target.js';
import { CliError, LOCAL_CODES } from '../../services/session/errors.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `stop` to the `daemon` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('stop')
    .description('Send SIGTERM to the daemon on this URL (started by `daemon start`, `npm run up` or stockscreend itself, on this machine) and wait until it has shut down')
    .option('--timeout <seconds>', 'how long to wait for the exit', intArg(1, 600), 15)
    .option('--force', 'send SIGKILL if it is still running after the timeout')
    .addHelpText('after', examples(['stockscreen daemon stop', 'stockscreen --url http://127.0.0.1:9000 daemon stop', 'stockscreen daemon stop --timeout 60 --force']))
    .action(
      action(ctx, async (session, cmd) => {
        const opts = cmd.opts<{ timeout: number; force?: boolean }>();
        const target = await findDaemon(session.paths, controlUrl(session));
        const result = await stopDaemon(session.paths, target.pid, { timeoutMs: opts.timeout * 1000, force: opts.force });
        if (result.pid !== undefined) return void session.out.info(`Stopped stockscreend (pid ${result.pid}) at ${target.url}`);
        if (await answersHealth(target.url)) {
          throw new CliError({
            code: LOCAL_CODES.DAEMON,
            message: `a stockscreend answers at ${target.url}, but this machine has no record of its process for this user (another user's, another host's, or one still starting)`,
            hint: 'stop it where it runs (Ctrl-C in its terminal, or signal its process)',
          });
        }
        session.out.info(result.stale ? `stockscreend was not running at ${target.url} (removed a stale pid file)` : `stockscreend is not running at ${target.url}`);
      }),
    );
}
