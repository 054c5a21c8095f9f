/** `stockscreen daemon logs`: print or follow the daemon's log file. */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { CliError, HINTS, LOCAL_CODES } from '../../services/session/errors.js';
import { fileSize, followFile, formatLogLine, readLogLines } from '../../services/daemon/log-file.js';
import { controlUrl, findDaemon } from '../../services/daemon/daemon-target.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** An AbortSignal for SIGINT (Ctrl-C ends --follow with exit 0) and a way to release it. */
function interruptSignal(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  return { signal: controller.signal, release: () => process.off('SIGINT', onSigint) };
}

/** Add `logs` to the `daemon` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('logs')
    .description('Print the log of the daemon on this URL (the file it writes to: $XDG_STATE_HOME/stockscreen/stockscreend.log for `daemon start`); raw JSON lines when piped')
    .option('-n, --lines <n>', 'how many of the last lines to print', intArg(0, 1_000_000), 100)
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .addHelpText('after', examples(['stockscreen daemon logs', 'stockscreen daemon logs -n 20 --follow', 'stockscreen daemon logs -n 0 -f | grep ERROR']))
    .action(
      action(ctx, async (session, cmd) => {
        const opts = cmd.opts<{ lines: number; follow?: boolean }>();
        const target = await findDaemon(session.paths, controlUrl(session));
        if (target.pid !== undefined && target.logFile === null) {
          // `npm run up` (stockscreend in the foreground): its lines go to that terminal, not to a file.
          throw new CliError({
            code: LOCAL_CODES.DAEMON,
            message: `stockscreend at ${target.url} (pid ${target.pid}) writes its log to the terminal it was started from (\`npm run up\` or stockscreend in the foreground), not to a file`,
            hint: 'read it there; `stockscreen daemon start` runs the daemon detached with a log file that this command prints',
          });
        }
        const file = target.logFile ?? session.paths.logFile;
        const pretty = session.out.mode === 'tty';
        const print = (line: string) => session.io.stdout.write((pretty ? formatLogLine(line) : line) + '\n');
        if (!existsSync(file)) {
          throw new CliError({ code: LOCAL_CODES.DAEMON, message: `no daemon log at ${file}`, hint: `logs are written by a daemon started with \`stockscreen daemon start\`; ${HINTS.start}` });
        }
        const size = await fileSize(file);
        if (opts.lines > 0) (await readLogLines(file, { count: opts.lines })).forEach(print);
        if (!opts.follow) return;
        let partial = '';
        const interrupt = session.io.signal ? { signal: session.io.signal, release() {} } : interruptSignal();
        try {
          await followFile(file, size, (text) => {
            const lines = (partial + text).split('\n');
            partial = lines.pop() ?? '';
            lines.forEach(print);
          }, interrupt.signal);
        } finally {
          interrupt.release();
        }
      }),
    );
}
