/** `stockscreen alerts edit <id>`: change an alert's threshold, state, recurrence, cooldown, note, channels, or a screen alert's membership and dwell. */
import { Option, type Command } from 'commander';
import { MAX_DWELL_S, SCREEN_MEMBERSHIPS, type AlertPatch, type ScreenMembership } from '../../../daemon/contract/alerts.js';
import { alertRecord, resolveAlertId, updateAlert } from '../../services/alerts/alerts.js';
import { usageError } from '../../services/session/errors.js';
import type { CliContext } from '../context.js';
import { collectValues, numberArg, secondsArg } from '../flag-parsers.js';
import { resolveChannelIds } from '../../services/notify/channels.js';
import { action, examples } from '../shared.js';

/** Edit flags as commander parses them. */
interface EditFlags {
  threshold?: number;
  active?: boolean;
  inactive?: boolean;
  recurring?: boolean;
  oneShot?: boolean;
  cooldown?: number;
  note?: string;
  notify?: string[];
  notifyNone?: boolean;
  membership?: ScreenMembership;
  dwell?: number;
}

/**
 * The PUT body of the flags.
 * @throws CliError USAGE when no field is given
 */
export function alertPatch(o: EditFlags): AlertPatch {
  const patch: AlertPatch = {};
  if (o.threshold !== undefined) patch.threshold = o.threshold;
  if (o.active || o.inactive) patch.active = o.active === true;
  if (o.recurring || o.oneShot) patch.recurring = o.recurring === true;
  if (o.cooldown !== undefined) patch.cooldown_s = o.cooldown;
  if (o.membership !== undefined) patch.membership = o.membership;
  if (o.dwell !== undefined) patch.dwell_s = o.dwell;
  // An empty note clears it.
  if (o.note !== undefined) patch.note = o.note === '' ? null : o.note;
  // The channels are resolved to ids by the caller; --notify-none clears them.
  if (o.notify !== undefined) patch.channels = o.notify;
  if (o.notifyNone) patch.channels = [];
  if (Object.keys(patch).length === 0) throw usageError('nothing to change', 'give at least one of --threshold, --active, --inactive, --recurring, --one-shot, --cooldown, --note, --notify, --notify-none, --membership, --dwell');
  return patch;
}

/** Add `edit` to the `alerts` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('edit')
    .description('Change an alert (piped: one row like `alerts list`)')
    .argument('<id>', 'alert id or a unique prefix of at least 4 characters (from `stockscreen alerts list`)')
    .option('--threshold <n>', 'new threshold', numberArg)
    .addOption(new Option('--active', 're-activate (re-arms a fired one-shot alert)').conflicts('inactive'))
    .addOption(new Option('--inactive', 'switch off without deleting'))
    .addOption(new Option('--recurring', 'fire again whenever the condition becomes true again').conflicts('oneShot'))
    .addOption(new Option('--one-shot', 'fire once, then become inactive'))
    .option('--cooldown <time>', 'least time between two firings, e.g. 10m (0 for none)', secondsArg(7 * 86_400))
    .addOption(new Option('--membership <kind>', 'a screen alert: count the preset\'s conditions or its page').choices(SCREEN_MEMBERSHIPS))
    .option('--dwell <time>', 'a screen alert: how long an entry (exit) must hold before it counts, e.g. 1m (0: at once)', secondsArg(MAX_DWELL_S))
    .option('--note <text>', 'new note ("" clears it)')
    .addOption(new Option('--notify <channel>', 'deliver its firings to these channels (replaces the list; id, prefix or name); repeat for several').argParser(collectValues).conflicts('notifyNone'))
    .addOption(new Option('--notify-none', 'deliver its firings to no channel'))
    .addHelpText('after', examples(['stockscreen alerts edit 6f1c2a9e --threshold 82000', 'stockscreen alerts edit 6f1c2a9e --active', 'stockscreen alerts edit 6f1c2a9e --recurring --cooldown 30m --note ""', 'stockscreen alerts edit 6f1c2a9e --notify phone --notify inbox', 'stockscreen alerts edit 6f1c2a9e --membership page --dwell 1m']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string];
        const flags = cmd.opts<EditFlags>();
        const patch = alertPatch({ ...flags, notify: flags.notify ? await resolveChannelIds(session, flags.notify) : undefined });
        const res = await updateAlert(session, await resolveAlertId(session, ref), patch);
        session.out.record(res.body, alertRecord(res.data, session.out.mode === 'tty'));
        session.out.info(`alert ${res.data.id} updated`);
      }),
    );
}
