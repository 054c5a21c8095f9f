/** `stockscreen watch`: live prices over the WebSocket, as an Ink screen or an NDJSON stream. */
import type { Command } from 'commander';
import { MARKETS } from '../../../daemon/contract/stocks.js';
import { usageError } from '../../services/session/errors.js';
import { interruptSignal } from '../../services/session/interrupt.js';
import { COLOR_LEGEND } from '../../services/output/market-format.js';
import type { Session } from '../../services/session/session.js';
import { initialWatchState } from '../../services/realtime/watch-state.js';
import { createSubscriptionLedger, fetchSeeds, runUntilStopped, subscriptionRequests, wsTokenSource, type StopConditions, type WatchTargets } from '../../services/realtime/watch.js';
import { createWsClient } from '../../services/transport/ws-client.js';
import { sectorArg } from '../../services/market/sectors.js';
import { subscribeOnEachSession } from '../../services/realtime/live-screen.js';
import type { CliContext } from '../context.js';
import { codeArg, durationArg, listArg, positiveIntArg } from '../flag-parsers.js';
import { action, examples } from '../shared.js';

const OUTPUT_HELP = `
Output:
  On a terminal: a live table (price, change, change %, volume, trend sparkline), market
  status, the order book of the selected row (↑/↓) and your alerts as they fire; q quits.
  ${COLOR_LEGEND}
  With --json or when piped: every server message as one JSON line (NDJSON), the messages
  of a batch one by one; connection events go to stderr. Ctrl-C, --count or --duration ends it.
  Dropped connections are re-established with backoff and the session restored (missed
  messages are replayed by the server). Log in to receive your alerts.`;

/** Flags of watch. */
interface WatchFlags {
  /** Live screens: template:<id> or preset:<id>. */
  screen?: string[];
  market?: string[];
  sector?: string[];
  count?: number;
  duration?: number;
}

/**
 * The targets of the command line.
 * @throws CliError USAGE for a bad code or market, or nothing to watch
 */
function targetsOf(rawCodes: string[], flags: WatchFlags): WatchTargets {
  const codes = rawCodes.map((c) => {
    try {
      return codeArg(c);
    } catch (err) {
      throw usageError((err as Error).message);
    }
  });
  const markets = (flags.market ?? []).map((m) => m.toUpperCase());
  const bad = markets.filter((m) => !(MARKETS as readonly string[]).includes(m));
  if (bad.length) throw usageError(`unknown market ${bad.join(', ')}`, `use ${MARKETS.join(' or ')}`);
  const targets = { codes, markets, sectors: (flags.sector ?? []).map(sectorArg) };
  if (codes.length + markets.length + targets.sectors.length + (flags.screen?.length ?? 0) === 0) throw usageError('nothing to watch', 'give stock codes, --market, --sector or --screen');
  return targets;
}

async function watch(session: Session, targets: WatchTargets, flags: WatchFlags): Promise<void> {
  const requests = subscriptionRequests(targets);
  const token = await wsTokenSource(session);
  if (!token) session.out.info('not logged in: public market data only (log in to receive your alerts)');
  const client = createWsClient({ baseUrl: session.baseUrl, token, subscriptions: requests });
  const ledger = createSubscriptionLedger(requests);
  const screens = [...new Set(flags.screen ?? [])];
  const offScreens = screens.length ? subscribeOnEachSession(client, { type: 'subscribe', subscription_type: 'screen', targets: screens }) : () => undefined;
  const interrupt = interruptSignal(session.io);
  const stop = (signal: AbortSignal): StopConditions => ({ count: flags.count, durationMs: flags.duration, signal });
  try {
    if (session.out.mode !== 'tty') {
      await runUntilStopped(client, ledger, session.io.stderr, stop(interrupt.signal), (m) => session.io.stdout.write(JSON.stringify(m) + '\n'));
      return;
    }
    const seeds = token ? await fetchSeeds(session, targets.codes) : [];
    const { mountWatchScreen } = await import('../../ui/live.js');
    const quit = new AbortController();
    const screen = mountWatchScreen(
      { client, initial: initialWatchState(targets.codes, seeds), color: session.out.color, loggedIn: token !== undefined, onExit: () => quit.abort() },
      session.io,
    );
    try {
      // The screen shows connection events itself; stderr would tear the drawing.
      await runUntilStopped(client, ledger, { write: () => true }, stop(AbortSignal.any([interrupt.signal, quit.signal])), () => undefined);
    } finally {
      await screen.close();
    }
  } finally {
    offScreens();
    interrupt.release();
  }
}

/** Add `watch` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('watch')
    .description('Watch live prices, order books, market status and your alerts (WebSocket; reconnects and restores the session by itself)')
    .argument('[codes...]', 'stock codes, e.g. 005930 000660')
    .option('--market <names>', `every stock of a market: ${MARKETS.join(', ')} (comma-separated or repeated)`, listArg)
    .option('--sector <names>', 'every stock of a sector, Korean or English name (comma-separated or repeated; see `stockscreen stocks sectors`)', listArg)
    .option('--screen <targets>', 'live screens too: template:<id> or preset:<uuid> (comma-separated or repeated); their entries and exits join the alert feed', listArg)
    .option('--count <n>', 'stop after n messages', positiveIntArg)
    .option('--duration <time>', 'stop after this long, e.g. 30s, 5m, 1h', durationArg(1, 7 * 86_400_000))
    .addHelpText(
      'after',
      OUTPUT_HELP +
        '\n' +
        examples([
          'stockscreen watch 005930 000660',
          'stockscreen watch --market KOSDAQ',
          'stockscreen watch 005930 --sector Semiconductors --json | jq -c \'select(.type == "price_update")\'',
          'stockscreen watch 005930 --json --count 10',
          'stockscreen watch 035720 --duration 30s > ticks.ndjson',
          'stockscreen watch 005930 --screen template:momentum',
        ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const flags = cmd.opts<WatchFlags>();
        await watch(session, targetsOf(cmd.processedArgs[0] as string[], flags), flags);
      }),
    );
}
