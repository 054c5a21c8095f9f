/**
 * stockscreend entry point: parse flags, resolve the config, start the daemon,
 * and shut down gracefully on SIGINT/SIGTERM. Returns the exit code; never calls process.exit
 * (the launcher exits with it at once: a shutdown that ran out of time may leave a connection
 * or a job's work pending, which must not keep the process alive).
 *
 * Shutdown is bounded by `shutdown_timeout_ms`: main resolves by then whatever is still closing.
 * A second SIGINT/SIGTERM during shutdown ends the process at once (the default action: no
 * listener is left after the first), even while the event loop is busy.
 */
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from './config.js';
import { createDaemon } from './daemon.js';
import { startExitWatchdog } from './infra/exit-watchdog.js';
import { announceReady } from './ready-line.js';
import { stateDirOf, stdoutLogFile, writeRunRecord } from './run-record.js';
import { startWorker } from './worker.js';
import { VERSION } from './version.js';

const EXAMPLES = `
Examples:
  $ stockscreend                                   # 127.0.0.1:8000, data in $XDG_DATA_HOME/stockscreen
  $ stockscreend --port 0 --data-dir /tmp/ss       # pick a free port (logged)
  $ stockscreend --sample                          # load the sample market when the database is empty
  $ STOCKSCREEN_JWT_SECRET=... REDIS_URL=redis://10.0.0.5:6379 stockscreend --host 0.0.0.0
  $ stockscreend worker --workers 2                # job workers only (loads, indicators)
  $ STOCKSCREEN_WORKER_BACKTESTS=2 stockscreend worker  # also 2 backtests at a time (its own copy of the history)
  $ stockscreend --backtest-workers 0              # this daemon only queues backtests; others run them
  $ stockscreend --shutdown-timeout-ms 10000       # exit at most 10 s after SIGTERM (a second SIGTERM: at once)
  $ stockscreend --host 0.0.0.0 --trust-proxy      # behind one reverse proxy (X-Forwarded-For: its last hop)
  $ stockscreend --trust-proxy=10.0.0.0/8,127.0.0.1  # trust only these proxy addresses
  $ DATABASE_URL=postgres://ss@db1/stockscreen REDIS_URL=redis://10.0.0.5:6379 stockscreend --host 0.0.0.0
                                                   # one of several daemons sharing PostgreSQL and Redis

Every flag has an environment equivalent STOCKSCREEN_<FLAG> (e.g. STOCKSCREEN_PORT=9000);
precedence is flag > environment > --config file > default.`;

function program(): Command {
  return new Command('stockscreend')
    .description('stockscreen daemon: REST + WebSocket service for KOSPI/KOSDAQ screening')
    .version(VERSION)
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on; 0 picks a free one (default 8000)')
    .option('--data-dir <dir>', 'data directory (default $XDG_DATA_HOME/stockscreen)')
    .option('--redis-url <url>', 'Redis URL (default redis://127.0.0.1:6379; env STOCKSCREEN_REDIS_URL, else REDIS_URL)')
    .option('--redis-prefix <prefix>', 'prefix of every Redis key (default stockscreen:)')
    .option('--database-url <url>', 'PostgreSQL URL (env DATABASE_URL); sqlite in the data dir when absent')
    .option('--database-schema <name>', 'PostgreSQL schema for the tables (created when missing; default: search_path)')
    .option('--config <file>', 'JSON config file')
    .option('--sample', 'load the built-in sample market when the database has no stocks')
    .option('--workers <n>', 'in-process job workers (0 = none; run `stockscreend worker` elsewhere)')
    .option('--no-workers', 'run no job workers in this process')
    .option('--shutdown-timeout-ms <ms>', 'longest a shutdown may take; then the process exits, running jobs go back to the queue (default 30000)')
    .option('--listen-backlog <n>', 'connections waiting to be accepted, e.g. after a restart every client reconnects at once (default 4096; the kernel caps it at net.core.somaxconn)')
    .option('--backtest-workers <n>', 'backtests this daemon runs at once (default 1; 0 = it only queues them)')
    .option('--trust-proxy [hops|addresses]', 'honour X-Forwarded-For from trusted proxies: alone = one hop; or a hop count, or comma-separated proxy addresses/CIDRs')
    .addOption(new Option('--market-clock <mode>', 'market hours').choices(['krx', 'always-open', 'always-closed']))
    .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
    .addOption(new Option('--log-format <format>', 'log lines: readable and coloured on a terminal, JSON otherwise (auto), or always one').choices(['auto', 'pretty', 'json']))
    .argument('[mode]', '"worker" to run only market-data job workers')
    .addHelpText('after', EXAMPLES)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
}

/** Map commander's camelCase options to config keys. */
function toConfigFlags(opts: Record<string, unknown>): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) {
    if (v === undefined) continue;
    flags[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  }
  // --no-workers arrives as workers=false
  if (flags.workers === false) flags.workers = 0;
  if (flags.workers === true) delete flags.workers;
  return flags;
}

/** Where SIGINT/SIGTERM arrive from: the process, or an emitter in tests. */
export type SignalSource = Pick<NodeJS.EventEmitter, 'on' | 'off'>;

/** `stockscreend --help | head -2` closes the pipe early: that is not a crash (other errors still throw). */
function tolerateClosedPipe(stream: NodeJS.WriteStream): void {
  if (stream.listenerCount('error') > 0) return;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/** Why start failed, in words that say what to do: a port in use names --port. */
export function startFailure(err: Error & { code?: string; port?: number; address?: string }, config: { host: string; port: number }): string {
  if (err.code === 'EADDRINUSE') {
    return `cannot start: port ${config.port} on ${config.host} is in use (another stockscreend? \`stockscreen daemon status\` tells); `
      + 'pick another with --port <n> (STOCKSCREEN_PORT), or --port 0 for any free port';
  }
  return `cannot start: ${err.message}`;
}

/** Run the daemon until a signal; resolves with the exit code. */
export async function main(argv: string[] = process.argv, env: NodeJS.ProcessEnv = process.env, signals: SignalSource = process): Promise<number> {
  tolerateClosedPipe(process.stdout);
  tolerateClosedPipe(process.stderr);
  const cmd = program();
  try {
    cmd.parse(argv);
  } catch (err) {
    const code = (err as { exitCode?: number }).exitCode;
    return typeof code === 'number' ? code : 1;
  }
  let config;
  try {
    config = loadConfig({ flags: toConfigFlags(cmd.opts()), env });
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`stockscreend: ${p}\n`);
      return 1;
    }
    throw err;
  }
  if (cmd.args[0] === 'worker') return runWorker(config, signals);
  if (cmd.args[0] !== undefined) {
    process.stderr.write(`stockscreend: unknown mode "${cmd.args[0]}" (expected nothing or "worker")\n`);
    return 2;
  }
  const daemon = createDaemon(config);
  // Installed before start(): a signal while starting stops the daemon once start has
  // settled (it is bounded: Redis and the job workers are not waited for without limit).
  const signal = onShutdownSignal(signals);
  try {
    const started = daemon.start().then(
      () => null,
      (err: Error) => err,
    );
    const first = await Promise.race([started.then((err) => ({ err })), signal.received.then((name) => ({ name }))]);
    if ('name' in first) {
      process.stderr.write(`stockscreend: ${first.name} received while starting; shutting down\n`);
      return await within(config.shutdown_timeout_ms, 'stockscreend', signals === process, () => started.then(async (failed) => {
        const code = await closed(daemon);
        return failed ? 1 : code;
      }));
    }
    if (first.err) {
      process.stderr.write(`stockscreend: ${startFailure(first.err, config)}\n`);
      await daemon.close();
      return 1;
    }
    // Where the CLI finds this daemon (pid, log) whichever command started it.
    const url = daemon.url().replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
    const removeRecord = await writeRunRecord(stateDirOf(env), { pid: process.pid, url, log_file: stdoutLogFile(), started_at: new Date().toISOString() });
    const announcing = new AbortController();
    void announceReady(daemon, process.stderr, announcing.signal).catch(() => undefined);
    const name = await signal.received;
    announcing.abort();
    process.stderr.write(`stockscreend: ${name} received, shutting down\n`);
    const code = await within(config.shutdown_timeout_ms, 'stockscreend', signals === process, () => closed(daemon));
    await removeRecord();
    return code;
  } finally {
    signal.dispose();
  }
}

/** Close and map the outcome to an exit code. */
function closed(target: { close(): Promise<void> }): Promise<number> {
  return target.close().then(
    () => 0,
    () => 1,
  );
}

/**
 * The exit code of the shutdown `close` starts, or 1 once `ms` have passed (said on stderr):
 * whatever is still pending then is left to the launcher's exit. The watchdog and the timer are
 * armed before `close` runs, so a shutdown that blocks or starves the thread from its first step
 * on is still bounded. `exiting`: the process exits once this returns (the launcher's
 * process.exit), and exiting was seen to hang too (the main thread busy in JavaScript after every
 * part had closed, with Redis gone): a short watchdog then replaces the long one, so the process
 * is gone within EXIT_GRACE_MS of its shutdown, inside the bound. An embedder's process (a test
 * runner calling main) goes on, so its watchdog is only called off.
 */
async function within(ms: number, name: string, exiting: boolean, close: () => Promise<number>): Promise<number> {
  const deadline = Date.now() + ms;
  // Should this thread be too busy to notice the time (its event loop starved), another ends the process.
  const watchdog = startExitWatchdog(ms - Math.min(100, ms / 50), `${name}: shutdown did not finish within ${ms} ms and the process does not respond; killed`);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => {
    // A little ahead of the bound: the exit itself (flushing the log, closing files) takes a moment too.
    timer = setTimeout(() => {
      process.stderr.write(`${name}: shutdown did not finish within ${ms} ms; exiting anyway (a job left running is taken up again once its lock lapses)\n`);
      resolve(1);
    }, ms - Math.min(500, ms / 20));
  });
  try {
    return await Promise.race([close(), late]);
  } finally {
    clearTimeout(timer);
    watchdog.stop();
    if (exiting) {
      const grace = Math.max(50, Math.min(EXIT_GRACE_MS, deadline - Date.now() - 50));
      startExitWatchdog(grace, `${name}: shut down but did not exit within ${grace} ms; killed`);
    }
  }
}

/** How long the process may take to exit once its shutdown has finished. */
const EXIT_GRACE_MS = 2000;

/**
 * The first SIGINT/SIGTERM. The listeners go as soon as one arrives, so a second signal
 * during a slow shutdown ends the process the default way; dispose() removes them too.
 */
function onShutdownSignal(signals: SignalSource): { received: Promise<string>; dispose(): void } {
  let resolve!: (name: string) => void;
  const received = new Promise<string>((r) => (resolve = r));
  const onInt = () => (dispose(), resolve('SIGINT'));
  const onTerm = () => (dispose(), resolve('SIGTERM'));
  function dispose() {
    signals.off('SIGINT', onInt);
    signals.off('SIGTERM', onTerm);
  }
  signals.on('SIGINT', onInt);
  signals.on('SIGTERM', onTerm);
  return { received, dispose };
}

async function runWorker(config: Parameters<typeof startWorker>[0], signals: SignalSource): Promise<number> {
  const signal = onShutdownSignal(signals);
  try {
    const started = startWorker(config).then(
      (worker) => ({ worker }),
      (err: Error) => ({ err }),
    );
    const first = await Promise.race([started, signal.received.then((name) => ({ name }))]);
    if ('name' in first) {
      process.stderr.write(`stockscreend worker: ${first.name} received while starting; shutting down\n`);
      return await within(config.shutdown_timeout_ms, 'stockscreend worker', signals === process, () => started.then((outcome) => ('worker' in outcome ? closed(outcome.worker) : 1)));
    }
    if ('err' in first) {
      process.stderr.write(`stockscreend worker: cannot start: ${first.err.message}\n`);
      return 1;
    }
    const name = await signal.received;
    process.stderr.write(`stockscreend worker: ${name} received, shutting down\n`);
    return await within(config.shutdown_timeout_ms, 'stockscreend worker', signals === process, () => closed(first.worker));
  } finally {
    signal.dispose();
  }
}
