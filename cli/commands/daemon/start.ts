/** `stockscreen daemon start`: run stockscreend in the background and wait until it is healthy. */
import type { Command } from 'commander';
import { healthyDaemonAt, runningDaemon, startDaemon } from '../../services/daemon/daemon-process.js';
import { marketLoadAt, marketLoadText } from '../../services/daemon/daemon-health.js';
import { findDaemon } from '../../services/daemon/daemon-target.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

/** Add `start` to the `daemon` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('start')
    .description('Start stockscreend detached (pid and log under $XDG_STATE_HOME/stockscreen), wait for /health, print its URL and a market load it started (--sample)')
    .option('--host <host>', 'address to listen on (daemon default 127.0.0.1)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (daemon default 8000)', intArg(0, 65535))
    .option('--data-dir <dir>', 'data directory (daemon default $XDG_DATA_HOME/stockscreen)')
    .option('--redis-url <url>', 'Redis URL (daemon default redis://127.0.0.1:6379)')
    .option('--database-url <url>', 'PostgreSQL instead of sqlite (passed as DATABASE_URL, not on the command line)')
    .option('--database-schema <name>', 'PostgreSQL schema of the tables (daemon default: the server\'s search_path)')
    .option('--sample', 'load the built-in sample market when the database is empty')
    .option('--timeout <seconds>', 'how long to wait for /health', intArg(1, 600), 20)
    .addHelpText(
      'after',
      examples([
        'stockscreen daemon start',
        'stockscreen daemon start --port 0 --sample           # any free port; the URL is printed',
        'STOCKSCREEN_REDIS_PREFIX=dev: stockscreen daemon start --redis-url redis://10.0.0.5:6379',
        'stockscreen daemon start --database-url postgres://ss@127.0.0.1/stockscreen   # or DATABASE_URL in the environment',
        '# other daemon settings pass through the environment (see `stockscreend --help`)',
      ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const opts = cmd.opts<{ host?: string; port?: number; dataDir?: string; redisUrl?: string; databaseUrl?: string; databaseSchema?: string; sample?: boolean; timeout: number }>();
        // A daemon already there is not an error (exit 0), whoever started it.
        const ours = runningDaemon(session.paths);
        const url = ours?.url ?? (await healthyDaemonAt(opts, session.env));
        if (ours || url) {
          // Whichever command started it (`npm run up` too), its own record names its process.
          const pid = ours?.pid ?? (url ? (await findDaemon(session.paths, url)).pid : undefined);
          if (session.out.mode === 'json') session.out.json({ url: url ?? null, pid: pid ?? null, already_running: true });
          else if (url) session.out.line(url);
          const who = ours ? `stockscreend is already running (pid ${ours.pid}${url ? `, ${url}` : ''})` : `a healthy stockscreend already answers at ${url}${pid ? ` (pid ${pid})` : ''}`;
          const stop = pid ? '`stockscreen daemon stop` stops it' : '`stockscreen daemon stop` stops one started on this machine';
          session.out.info(`${who}: nothing to start (\`stockscreen daemon status\` shows it; ${stop})`);
          const load = url ? marketLoadText(await marketLoadAt(url)) : null;
          if (load) session.out.info(load);
          return;
        }
        session.out.info('Starting stockscreend…');
        const started = await startDaemon(session.paths, session.env, { ...opts, timeoutMs: opts.timeout * 1000 });
        if (session.out.mode === 'json') session.out.json({ pid: started.pid, url: started.url, log_file: started.logFile });
        else session.out.line(started.url);
        session.out.info(`stockscreend is running (pid ${started.pid}); logs: ${started.logFile}`);
        const load = marketLoadText(await marketLoadAt(started.url));
        if (load) session.out.info(`${load}; \`stockscreen daemon status\` shows its progress`);
      }),
    );
}
