/** `stockscreen load sample`: have the daemon generate and load the deterministic sample market. */
import type { Command } from 'commander';
import { interruptSignal } from '../../services/session/interrupt.js';
import { SAMPLE_UNIVERSE_SIZE } from '../../../loaders/sample-market.js';
import { runLoadJob } from '../../services/load/load-job.js';
import { withMixingHint } from '../../services/load/market-state.js';
import type { CliContext } from '../context.js';
import { retryForOption } from '../flag-parsers.js';
import { action, examples, intArg } from '../shared.js';

/**
 * An option that `load` and `load sample` both define. Commander lets the parent consume
 * options written after the subcommand name (the program does not use positional
 * options), so the value is the subcommand's when set there, else the parent's when set
 * there, else the subcommand's default.
 */
function shared<T>(cmd: Command, key: string): T {
  const given = (c: Command | null) => c !== null && ['cli', 'env'].includes(c.getOptionValueSource(key) ?? '');
  if (!given(cmd) && given(cmd.parent)) return cmd.parent!.getOptionValue(key) as T;
  return cmd.getOptionValue(key) as T;
}

/** Add `sample` to the `load` command. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('sample')
    .description(`Load the built-in sample market: the real KOSPI/KOSDAQ listing (${SAMPLE_UNIVERSE_SIZE.toLocaleString('en-US')} issues: codes, names, sectors, shares) with generated prices over two years and statements, deterministic from --seed; refused over loaded files, and over a sample market unless --replace (admin only)`)
    .option('--seed <n>', 'generator seed (default 42)', intArg(0, 2 ** 31))
    .option('--stocks <n>', 'the N largest listed issues, KOSPI and KOSDAQ in proportion (default: all)', intArg(10, SAMPLE_UNIVERSE_SIZE))
    .option('--days <n>', 'trading days of history (default: two years)', intArg(30, 1500))
    .option('--wait', 'follow the job with a progress bar until it finishes (default on a terminal)')
    .option('--no-wait', 'return as soon as the job is enqueued (default when piped)')
    .option('--no-compute', 'do not compute indicators after loading')
    .option('--replace', 'the database holds a sample market already: replace it (in the same transaction) instead of refusing')
    .addOption(retryForOption())
    .addHelpText('after', examples([
      'stockscreen load sample',
      'stockscreen load sample --seed 7 --stocks 60 --days 260 --wait',
      'stockscreen load sample --stocks 500 --replace      # a smaller sample market in place of the one loaded',
      'stockscreen load sample --no-wait --json | jq .data.id',
    ]))
    .action(
      action(ctx, async (session, cmd) => {
        const opts = cmd.opts<{ seed?: number; stocks?: number; days?: number; replace?: boolean }>();
        const interrupt = interruptSignal(session.io);
        try {
          return await runLoadJob(
            session,
            { type: 'load-sample', seed: opts.seed, stocks: opts.stocks, days: opts.days, compute: shared<boolean>(cmd, 'compute'), replace: opts.replace === true },
            { wait: shared<boolean | undefined>(cmd, 'wait'), signal: interrupt.signal, retryForMs: shared<number>(cmd, 'retryFor') },
          );
        } catch (err) {
          throw withMixingHint(err, `stockscreen load sample${opts.stocks !== undefined ? ` --stocks ${opts.stocks}` : ''}`);
        } finally {
          interrupt.release();
        }
      }),
    );
}
