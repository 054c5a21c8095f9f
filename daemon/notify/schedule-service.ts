/**
 * Digest schedules a user owns: create (one of their presets, a time of day, one or more of
 * their channels; capped by tier), list with the last run and the next, read, delete. Another
 * user's schedule is "not found"; another user's preset or channel is refused like an unknown one.
 */
import type { NewSchedule, Schedule } from '../contract/notify.js';
import { AppError, invalidRequest, notFound } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import type { Tier } from '../kernel/roles.js';
import type { ScheduleRecord, SchedulesRepo } from '../store/schedules-repo.js';
import type { ChannelService } from './channel-service.js';
import { nextRunAt } from './digests.js';

/** Collaborators. */
export interface ScheduleServiceDeps {
  schedules: Pick<SchedulesRepo, 'create' | 'get' | 'list' | 'delete'>;
  channels: Pick<ChannelService, 'checkOwned'>;
  /** Whether the user has this preset. */
  presetExists(userId: string, presetId: string): Promise<boolean>;
  caps: Readonly<Record<Tier, number | null>>;
  clock: Clock;
}

/** The schedule service. */
export interface ScheduleService {
  /** @throws AppError INVALID_REQUEST (unknown preset or channel), FORBIDDEN (tier cap) */
  create(owner: { id: string; tier: Tier }, input: NewSchedule): Promise<Schedule>;
  /** @throws AppError NOT_FOUND */
  get(userId: string, id: string): Promise<Schedule>;
  list(userId: string): Promise<Schedule[]>;
  /** @throws AppError NOT_FOUND */
  delete(userId: string, id: string): Promise<void>;
}

/** A schedule as the API shows it. */
export function scheduleView(s: ScheduleRecord, now: number): Schedule {
  const run = s.last_run;
  return {
    id: s.id, preset_id: s.preset_id, preset_name: s.preset_name, at: s.at, channels: s.channels,
    last_run: run ? { trade_date: run.trade_date, ran_at: new Date(Number(run.ran_at)).toISOString(), members: run.members.length, entered: run.entered, left: run.exited } : null,
    next_run_at: new Date(nextRunAt(s, now)).toISOString(), created_at: s.created_at,
  };
}

/** Create the schedule service. */
export function createScheduleService(deps: ScheduleServiceDeps): ScheduleService {
  const now = () => deps.clock.now();
  return {
    async create(owner, input) {
      if (!(await deps.presetExists(owner.id, input.preset_id))) throw invalidRequest('Unknown preset', { preset_id: 'no preset of yours has this id' });
      await deps.channels.checkOwned(owner.id, input.channels, 'channels');
      const write = await deps.schedules.create(owner.id, { ...input, created_at: new Date(now()).toISOString() }, deps.caps[owner.tier]);
      if (!write.ok) {
        const limit = deps.caps[owner.tier];
        throw new AppError('FORBIDDEN', `Schedule limit reached: the ${owner.tier} tier allows ${limit} schedules and you have ${write.count}. Delete one, or upgrade your tier.`, { tier: owner.tier, limit, count: write.count });
      }
      return scheduleView(write.schedule, now());
    },
    async get(userId, id) {
      const s = await deps.schedules.get(userId, id);
      if (!s) throw notFound('Schedule', { id });
      return scheduleView(s, now());
    },
    async list(userId) {
      return (await deps.schedules.list(userId)).map((s) => scheduleView(s, now()));
    },
    async delete(userId, id) {
      if (!(await deps.schedules.delete(userId, id))) throw notFound('Schedule', { id });
    },
  };
}
