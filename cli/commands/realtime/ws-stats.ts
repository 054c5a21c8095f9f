/** `stockscreen ws-stats`: the WebSocket gateway's statistics, once or as a live dashboard. */
import { Option, type Command } from 'commander';
import { formatDuration } from '../../services/output/duration.js';
import { createEventHub } from '../../services/output/event-hub.js';
import { interruptSignal } from '../../services/session/interrupt.js';
import { tsvLine } from '../../services/output/output.js';
import type { Session } from '../../services/session/session.js';
import { fetchWsStats, pollStats, WS_STATS_COLUMNS, wsStatsRecord, wsStatsRow, type StatsEvent } from '../../services/realtime/ws-stats.js';
import type { CliContext } from '../context.js';
import { durationArg, positiveIntArg } from '../flag-parsers.js';
import { action, examples } from '../shared.js';

/** Flags of ws-stats. */
interface StatsFlags {
  watch?: boolean;
  interval: number;
  count?: number;
}

async function watchStats(session: Session, flags: StatsFlags): Promise<void> {
  const interrupt = interruptSignal(session.io);
  const poll = { intervalMs: flags.interval, count: flags.count, signal: interrupt.signal };
  try {
    if (session.out.mode !== 'tty') {
      // NDJSON of the API bodies with --json, else one tab-separated row per sample.
      const print = session.out.mode === 'json'
        ? (body: unknown) => session.io.stdout.write(JSON.stringify(body) + '\n')
        : (body: unknown, data: Parameters<typeof wsStatsRow>[0]) => session.io.stdout.write(tsvLine(wsStatsRow(data, new Date())) + '\n');
      await pollStats(() => fetchWsStats(session), poll, (res) => print(res.body, res.data), session.io.stderr);
      return;
    }
    const hub = createEventHub<StatsEvent>();
    const quit = new AbortController();
    const { mountStatsDashboard } = await import('../../ui/live.js');
    const screen = mountStatsDashboard(
      { subscribe: hub.subscribe, url: session.baseUrl, intervalLabel: formatDuration(flags.interval), color: session.out.color, onExit: () => quit.abort() },
      session.io,
    );
    const errors = { write: (text: string) => hub.emit({ type: 'error', message: text.trim().split('\n')[0]!.replace(/^error: /, '') }) };
    try {
      await pollStats(() => fetchWsStats(session), { ...poll, signal: AbortSignal.any([interrupt.signal, quit.signal]) }, (res) => hub.emit({ type: 'sample', stats: res.data, at: new Date() }), errors);
    } finally {
      await screen.close();
    }
  } finally {
    interrupt.release();
  }
}

/** Add `ws-stats` to `parent`. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('ws-stats')
    .description('WebSocket gateway statistics (GET /v1/ws/stats): connections, subscriptions, messages/s, memory')
    .option('--watch', 'refresh every --interval until Ctrl-C (a live dashboard with trends on a terminal)')
    .addOption(new Option('--interval <time>', 'time between samples with --watch, e.g. 500ms, 2s').argParser(durationArg(100, 3_600_000)).default(1000, '1s'))
    .option('--count <n>', 'with --watch: stop after n samples', positiveIntArg)
    .addHelpText(
      'after',
      `\nOutput:\n  Piped: one tab-separated row per sample:\n    ${WS_STATS_COLUMNS.join(', ')}\n  --json: the API body (with --watch one JSON line per sample).\n` +
        examples(['stockscreen ws-stats', 'stockscreen ws-stats --watch --interval 2s', 'stockscreen ws-stats --json | jq .data.active_connections', 'stockscreen ws-stats --watch --count 60 > stats.tsv']),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const flags = cmd.opts<StatsFlags>();
        if (flags.watch) return void (await watchStats(session, flags));
        const res = await fetchWsStats(session);
        if (session.out.mode === 'plain') session.io.stdout.write(tsvLine(wsStatsRow(res.data, new Date())) + '\n');
        else session.out.record(res.body, wsStatsRecord(res.data));
      }),
    );
}
