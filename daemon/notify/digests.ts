/**
 * Daily digests: a schedule runs one of its owner's presets at a time of day (Korea time) on
 * KRX trading days only (the calendar in daemon/kernel), and sends its members with what entered
 * and left since the previous run to its channels.
 *
 * The digest clock (`tick`) is run by one daemon per interval (a BullMQ job scheduler) and reads
 * the daemon's clock: a schedule is due on a trading day once its time has passed and it has not
 * run that day (a daemon that was down at 15:40 sends the day's digest when it is back, the same
 * day; days missed entirely are not sent later). A run is recorded once per schedule and day
 * (its unique key), its deliveries in the same transaction, so a digest goes out once even when
 * several daemons tick together.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DigestData, DigestMember } from '../contract/notify.js';
import type { Clock } from '../infra/clock.js';
import { addDays, isTradingDay } from '../kernel/krx-calendar.js';
import type { DeliveriesRepo } from '../store/deliveries-repo.js';
import type { ScheduleRecord, SchedulesRepo } from '../store/schedules-repo.js';
import type { ChannelRecord } from '../store/channels-repo.js';
import { digestBody } from './messages.js';
import type { DeliveryQueuePort } from './delivery-service.js';

/** Korea's offset from UTC (no daylight saving time). */
const KST_OFFSET_MS = 9 * 3_600_000;

/** The Korean calendar date and `HH:MM` of `ms`. */
export function koreaDateTime(ms: number): { date: string; time: string } {
  const iso = new Date(ms + KST_OFFSET_MS).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

/** Epoch ms of `date` at `time`, Korea time. */
export function koreaInstant(date: string, time: string): number {
  return Date.parse(`${date}T${time}:00+09:00`);
}

/**
 * True when the schedule should run now: a trading day, its time passed, not run that day, and
 * that day's time came after the schedule was made (a digest set up at 20:00 for 15:40 starts tomorrow).
 */
export function isDue(schedule: Pick<ScheduleRecord, 'at' | 'last_run' | 'created_at'>, now: number): boolean {
  const { date, time } = koreaDateTime(now);
  return isTradingDay(date) && time >= schedule.at && schedule.last_run?.trade_date !== date && koreaInstant(date, schedule.at) >= Date.parse(schedule.created_at);
}

/** When the schedule runs next: now when due, else its time on the next trading day it has not run. */
export function nextRunAt(schedule: Pick<ScheduleRecord, 'at' | 'last_run' | 'created_at'>, now: number): number {
  if (isDue(schedule, now)) return now;
  const today = koreaDateTime(now).date;
  for (let k = 0; k < 60; k++) {
    const d = addDays(today, k);
    if (!isTradingDay(d) || schedule.last_run?.trade_date === d) continue;
    const at = koreaInstant(d, schedule.at);
    if (at > now && at >= Date.parse(schedule.created_at)) return at;
  }
  return koreaInstant(addDays(today, 1), schedule.at);
}

/** Collaborators. */
export interface DigestDeps {
  schedules: Pick<SchedulesRepo, 'all' | 'recordRun'>;
  deliveries: Pick<DeliveriesRepo, 'create'>;
  channels: { getById(id: string): Promise<ChannelRecord | undefined> };
  /** The members of the owner's preset now, and its name; null when the preset is gone. */
  members(userId: string, presetId: string): Promise<{ name: string; members: DigestMember[] } | null>;
  queue: Pick<DeliveryQueuePort, 'send'>;
  clock: Clock;
  logger: Logger;
  maxAgeMs: number;
}

/** The digest clock. */
export interface Digests {
  /** Run every schedule due now; resolves with the number of digests run here. */
  tick(): Promise<number>;
  /** Ticks completed by this daemon (tests wait for one). */
  ticks(): number;
}

/** Create the digest clock. */
export function createDigests(deps: DigestDeps): Digests {
  let completed = 0;

  async function run(s: ScheduleRecord, now: number): Promise<boolean> {
    const current = await deps.members(s.user_id, s.preset_id);
    if (!current) return false;
    const { date } = koreaDateTime(now);
    const before = new Map((s.last_run?.members ?? []).map((m) => [m.code, m]));
    const nowCodes = new Set(current.members.map((m) => m.code));
    const entered = current.members.filter((m) => !before.has(m.code));
    const left = [...before.values()].filter((m) => !nowCodes.has(m.code));
    const channels = (await Promise.all(s.channels.map((id) => deps.channels.getById(id)))).filter((c): c is ChannelRecord => c !== undefined);
    const created: { id: string; round: number }[] = [];
    const recorded = await deps.schedules.recordRun({ schedule_id: s.id, trade_date: date, ran_at: now, members: current.members, entered: entered.length, exited: left.length }, async (tx, runId) => {
      created.length = 0;
      for (const channel of channels) {
        const id = randomUUID();
        const data: DigestData = {
          delivery_id: id, schedule_id: s.id, preset_id: s.preset_id, preset_name: current.name, trade_date: date,
          members: current.members, entered, left, previous_trade_date: s.last_run?.trade_date ?? null,
        };
        const d = await deps.deliveries.create(
          { id, user_id: s.user_id, channel_id: channel.id, channel_type: channel.type, kind: 'digest', body: digestBody(data, now), schedule_id: s.id, event_ids: [runId], now, deadline_at: now + deps.maxAgeMs },
          tx,
        );
        created.push({ id: d.id, round: d.round });
      }
    });
    if (!recorded) return false;
    for (const d of created) await deps.queue.send(d.id, d.round, now).catch((err: Error) => deps.logger.warn({ err: err.message, delivery: d.id }, 'digest delivery not queued yet (the sweep will)'));
    deps.logger.info({ schedule: s.id, trade_date: date, members: current.members.length, entered: entered.length, left: left.length }, 'digest run');
    return true;
  }

  return {
    async tick() {
      const now = deps.clock.now();
      let runs = 0;
      try {
        if (!isTradingDay(koreaDateTime(now).date)) return 0;
        for (const s of await deps.schedules.all()) {
          if (!isDue(s, now)) continue;
          try {
            if (await run(s, now)) runs++;
          } catch (err) {
            deps.logger.error({ err, schedule: s.id }, 'digest run failed; retried at the next tick');
          }
        }
        return runs;
      } finally {
        completed++;
      }
    },
    ticks: () => completed,
  };
}
