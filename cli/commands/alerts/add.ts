/** `stockscreen alerts add <code> <type> <threshold>`: create a price alert. */
import { Argument, type Command } from 'commander';
import { PRICE_ALERT_TYPES, type NewPriceAlert } from '../../../daemon/contract/alerts.js';
import { alertRecord, createAlert, formatThreshold } from '../../services/alerts/alerts.js';
import { formatDuration } from '../../services/output/duration.js';
import type { CliContext } from '../context.js';
import { codeArg, collectValues, numberArg, secondsArg } from '../flag-parsers.js';
import { resolveChannelIds } from '../../services/notify/channels.js';
import { action, examples } from '../shared.js';

const TYPES_HELP = `
Types and thresholds:
  price_above, price_below                    a price in KRW (> 0)
  change_percent_above, change_percent_below  the day's change in percent (may be negative)
  volume_above                                a multiple of the 20-day average volume (> 0)
A one-shot alert fires once and becomes inactive; a --recurring one fires again each time
the condition becomes true again, at most once per --cooldown. Firings show in
\`stockscreen watch\` and \`stockscreen alerts history\`. Alerts on a preset's live screen:
\`stockscreen alerts add-screen\`.`;

/** Add `add` to the `alerts` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('add')
    .description('Create a price alert (piped: one row like `alerts list`)')
    .addArgument(new Argument('<code>', 'stock code, e.g. 005930').argParser(codeArg))
    .addArgument(new Argument('<type>', 'alert type').choices(PRICE_ALERT_TYPES))
    .addArgument(new Argument('<threshold>', 'threshold (see below)').argParser(numberArg))
    .option('--recurring', 'fire again whenever the condition becomes true again (default: once)')
    .option('--cooldown <time>', 'least time between two firings of a recurring alert, e.g. 10m', secondsArg(7 * 86_400))
    .option('--note <text>', 'a note shown with the alert')
    .option('--notify <channel>', 'deliver its firings to this channel too (id, prefix or name; see `stockscreen channels`); repeat for several', collectValues)
    .addHelpText(
      'after',
      TYPES_HELP +
        '\n' +
        examples([
          'stockscreen alerts add 005930 price_above 80000',
          'stockscreen alerts add 035720 change_percent_below -3.5 --recurring --cooldown 10m',
          'stockscreen alerts add 000660 volume_above 3 --note "volume spike"',
          'stockscreen alerts add 005930 price_below 70000 --notify phone --notify ops-webhook',
        ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const [code, type, threshold] = cmd.processedArgs as [string, NewPriceAlert['alert_type'], number];
        const o = cmd.opts<{ recurring?: boolean; cooldown?: number; note?: string; notify?: string[] }>();
        const channels = o.notify ? await resolveChannelIds(session, o.notify) : undefined;
        const res = await createAlert(session, { code, alert_type: type, threshold, recurring: o.recurring, cooldown_s: o.cooldown, note: o.note, channels });
        const tty = session.out.mode === 'tty';
        session.out.record(res.body, alertRecord(res.data, tty));
        const a = res.data;
        const cooldown = a.recurring && a.cooldown_s ? `, cooldown ${formatDuration(a.cooldown_s * 1000)}` : '';
        session.out.info(`alert ${a.id}: ${a.code} ${a.alert_type} ${formatThreshold(a.alert_type, a.threshold)} (${a.recurring ? 'recurring' : 'one-shot'}${cooldown})`);
      }),
    );
}
