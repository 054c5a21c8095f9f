/** `stockscreen loadtest <scenario...|all>`: load-test a daemon against the spec's targets. */
import { InvalidArgumentError, Option, type Command } from 'commander';
// Only the names: the kit itself (autocannon, histograms) is loaded when a run starts, not by every CLI command.
import { EXTRA_SCENARIO_NAMES, SCENARIO_NAMES } from '../../../loadtest/options.js';
import type { LoadtestFlags } from '../../services/loadtest/loadtest-run.js';
import type { CliContext } from '../context.js';
import { action, examples, intArg } from '../shared.js';

const NAMES = new Set<string>(['all', ...SCENARIO_NAMES, ...EXTRA_SCENARIO_NAMES]);

function scenarioArg(value: string, previous: string[] = []): string[] {
  if (!NAMES.has(value)) throw new InvalidArgumentError(`unknown scenario "${value}"; one of: ${[...NAMES].join(', ')}`);
  return [...previous, value];
}

/** Add `loadtest` at the top level. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('loadtest')
    .description(
      `Run load-test scenarios against a daemon and compare with the spec's targets (${SCENARIO_NAMES.join(', ')}; also ${EXTRA_SCENARIO_NAMES.join(', ')}). ` +
        'Loopback targets only unless --allow-remote. Exit 0 when every judged target passes, 1 when one fails, 2 when interrupted.',
    )
    .argument('[scenarios...]', 'scenario names, or "all"', (v: string, prev: string[]) => scenarioArg(v, prev === undefined ? [] : prev))
    .option('--duration <time>', 'measured time per scenario, e.g. 30s or 2m', '30s')
    .option('--warmup <time>', 'warm-up before each REST measurement (default: a fifth of the duration, at most 5s)')
    .option('--connections <n>', 'HTTP connections (and WebSocket clients unless --ws-clients)', intArg(1, 100_000))
    .option('--rate <n>', 'fixed request rate per second (default: closed loop); for a run of ws-fanout alone, messages per second offered to each client', intArg(1, 1_000_000))
    .option('--cache', 'let identical screening requests hit the result cache')
    .option('--ws-clients <n>', 'WebSocket clients for ws-fanout', intArg(1, 100_000))
    .option('--clients <n>', 'same as --ws-clients', intArg(1, 100_000))
    .option('--daemon-pid <pid>', 'pid of the daemon on this machine, for its CPU per delivered message (default: the daemon `daemon start` recorded, when it is the target)', intArg(1, 4_194_304))
    .option('--stocks-per-client <n>', 'stocks each WebSocket client subscribes to', intArg(1, 1000))
    .option('--storm-window <time>', 'ws-reconnect-storm: time over which the clients reconnect, evenly spread (0 = all at once; default 1,000 clients a second, at most 10s)')
    .addOption(new Option('--market <market>', 'ws-fanout clients also subscribe to this market (their stocks are then drawn from it)').choices(['KOSPI', 'KOSDAQ']))
    .option('--allow-remote', 'allow a non-loopback target')
    .option('--out <file>', 'also write the JSON report to FILE')
    .option('--cleanup', 'delete the bench account and every other loadtest-…@example.com account (admin), forget the kept logins, and exit')
    .addHelpText(
      'after',
      examples([
        'stockscreen loadtest screen-simple --duration 10s',
        'stockscreen loadtest all --json --out report.json',
        'stockscreen loadtest ws-fanout --ws-clients 2000 --stocks-per-client 10 --duration 20s',
        'stockscreen loadtest ws-fanout --ws-clients 500 --market KOSDAQ --duration 10s',
        "# the spec's real-time figure: 10,000 clients × 10 messages/s, PASS when ≥ 100,000 msg/s arrive with p99 < 100 ms",
        'stockscreen loadtest ws-fanout --clients 10000 --rate 10 --duration 20s',
        '# a restart: 10,000 clients reconnect within 10 s; all must connect on their first attempt (daemon RSS and tick → client p99 reported)',
        'stockscreen loadtest ws-reconnect-storm --clients 10000 --storm-window 10s --stocks-per-client 5',
        '# run by an admin: one bench account per daemon and profile, kept and given a load-test exemption for each run:',
        'STOCKSCREEN_ADMIN_EMAIL=ops@example.com STOCKSCREEN_ADMIN_PASSWORD=... stockscreen loadtest all',
        '# anyone else: an admin exempts your account first',
        'stockscreen admin users loadtest-grant me@example.com --for 2h',
        'stockscreen loadtest --cleanup',
      ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const scenarios = (cmd.processedArgs[0] as string[] | undefined) ?? [];
        const { runLoadtestCommand } = await import('../../services/loadtest/loadtest-run.js');
        return runLoadtestCommand(session, scenarios, cmd.opts<LoadtestFlags>());
      }),
    );
}
