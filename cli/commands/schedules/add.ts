/** `stockscreen schedules add <preset> --at HH:MM --notify <channel>`: a daily digest of a preset. */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { resolveChannelIds } from '../../services/notify/channels.js';
import { createSchedule, scheduleRecord } from '../../services/notify/deliveries.js';
import { resolvePresetId } from '../../services/screening/presets.js';
import { usageError } from '../../services/session/errors.js';
import type { CliContext } from '../context.js';
import { collectValues } from '../flag-parsers.js';
import { action, examples } from '../shared.js';

const time = (value: string) => {
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(value)) throw new InvalidArgumentError('must be a time HH:MM (24 h, Korea time), e.g. 15:40');
  return value;
};

/** Add `add` to the `schedules` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('add')
    .description('Schedule a daily digest of a preset: its members, and what entered and left since the previous run (piped: one row like `schedules list`)')
    .argument('<preset>', 'one of your presets: its id or name')
    .requiredOption('--at <HH:MM>', 'time of day, Korea time (KST); runs on KRX trading days only', time)
    .option('--notify <channel>', 'a channel to send it to (id, prefix or name); repeat for several', collectValues)
    .addHelpText('after', examples(['stockscreen schedules add cheap --at 15:40 --notify phone', 'stockscreen schedules add momentum --at 08:50 --notify team --notify inbox', 'stockscreen schedules list']))
    .action(
      action(ctx, async (session, cmd) => {
        const [ref] = cmd.processedArgs as [string];
        const o = cmd.opts<{ at: string; notify?: string[] }>();
        if (!o.notify?.length) throw usageError('a digest needs at least one channel: --notify CHANNEL', 'add one with `stockscreen channels add`');
        const res = await createSchedule(session, { preset_id: await resolvePresetId(session, ref), at: o.at, channels: await resolveChannelIds(session, o.notify) });
        session.out.record(res.body, scheduleRecord(res.data, session.out.mode === 'tty'));
        session.out.info(`schedule ${res.data.id}: "${res.data.preset_name}" at ${res.data.at} KST on trading days; next run ${res.data.next_run_at}`);
      }),
    );
}
