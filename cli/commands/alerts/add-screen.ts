/** `stockscreen alerts add-screen <preset> <screen_enter|screen_exit>`: create an alert on a preset's live screen. */
import { Argument, Option, type Command } from 'commander';
import { DEFAULT_DWELL_S, MAX_DWELL_S, SCREEN_ALERT_TYPES, SCREEN_MEMBERSHIPS, type NewScreenAlert, type ScreenMembership } from '../../../daemon/contract/alerts.js';
import { alertRecord, createAlert } from '../../services/alerts/alerts.js';
import { formatDuration } from '../../services/output/duration.js';
import { resolvePresetId } from '../../services/screening/presets.js';
import type { CliContext } from '../context.js';
import { collectValues, secondsArg } from '../flag-parsers.js';
import { resolveChannelIds } from '../../services/notify/channels.js';
import { action, examples } from '../shared.js';

const TYPES_HELP = `
Types:
  screen_enter  fires for each stock that enters the preset's live screen
  screen_exit   fires for each stock that leaves it
Membership (--membership):
  conditions    a stock is in when it meets the preset's filters and expression at live prices,
                wherever its sort puts it (the default for a preset with filters or an expression)
  page          a stock is in when it is on the preset's page, what \`stockscreen screen --live
                --preset <name>\` shows: a stock pushed into (out of) a top-N enters (exits)
                (the default, and the only choice, for a preset that only sorts)
Dwell (--dwell, default ${DEFAULT_DWELL_S}s): an entry (exit) counts only once it has held that long,
so two stocks swapping places at the edge of a top-N do not fire every few seconds; 0 counts
every change at once.
Stocks already in the screen when the alert is created do not fire. A one-shot alert fires for
the first stock and becomes inactive; a --recurring one fires for every entry (exit), a stock
again only after it has left and re-entered, and not within --cooldown of its last firing.
Deleting the preset deletes its screen alerts (their history is kept).`;

/** Add `add-screen` to the `alerts` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('add-screen')
    .description('Create an alert on a preset\'s live screen (piped: one row like `alerts list`)')
    .addArgument(new Argument('<preset>', 'one of your presets: its id or name'))
    .addArgument(new Argument('<type>', 'alert type').choices(SCREEN_ALERT_TYPES))
    .option('--recurring', 'fire for every entry (exit), not only the first')
    .addOption(new Option('--membership <kind>', 'what makes a stock a member: the preset\'s conditions, or its page (top-N cut)').choices(SCREEN_MEMBERSHIPS))
    .option('--dwell <time>', `how long an entry (exit) must hold before it counts, e.g. 30s, 5m, 0 (default ${DEFAULT_DWELL_S}s)`, secondsArg(MAX_DWELL_S))
    .option('--cooldown <time>', 'least time between two firings for the same stock, e.g. 30m', secondsArg(7 * 86_400))
    .option('--note <text>', 'a note shown with the alert')
    .option('--notify <channel>', 'deliver its firings to this channel too (id, prefix or name; see `stockscreen channels`); repeat for several', collectValues)
    .addHelpText(
      'after',
      TYPES_HELP +
        '\n' +
        examples([
          'stockscreen alerts add-screen momentum screen_enter',
          'stockscreen alerts add-screen cheap screen_enter --recurring --membership page --dwell 30s',
          'stockscreen alerts add-screen top-gainers screen_exit --recurring --cooldown 30m --note "left the top 20"',
          'stockscreen alerts add-screen momentum screen_enter --recurring --notify phone',
          'stockscreen alerts list --type screen_enter',
        ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const [ref, type] = cmd.processedArgs as [string, NewScreenAlert['alert_type']];
        const o = cmd.opts<{ recurring?: boolean; cooldown?: number; note?: string; notify?: string[]; membership?: ScreenMembership; dwell?: number }>();
        const presetId = await resolvePresetId(session, ref);
        const channels = o.notify ? await resolveChannelIds(session, o.notify) : undefined;
        const res = await createAlert(session, {
          preset_id: presetId, alert_type: type, recurring: o.recurring, cooldown_s: o.cooldown, note: o.note, channels, membership: o.membership, dwell_s: o.dwell,
        });
        session.out.record(res.body, alertRecord(res.data, session.out.mode === 'tty'));
        const a = res.data;
        const cooldown = a.recurring && a.cooldown_s ? `, cooldown ${formatDuration(a.cooldown_s * 1000)}` : '';
        const dwell = a.dwell_s ? `, dwell ${formatDuration(a.dwell_s * 1000)}` : ', no dwell';
        session.out.info(`alert ${a.id}: preset ${a.preset_id} ${a.alert_type} by its ${a.membership ?? 'page'} (${a.recurring ? 'recurring' : 'one-shot'}${cooldown}${dwell})`);
      }),
    );
}
