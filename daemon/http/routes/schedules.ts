/**
 * Digest schedules: run one of your presets at a time of day (Korea time) on KRX trading days
 * and send its members, with what entered and left since the previous run, to your channels.
 * Another user's schedule is a 404; another user's preset or channel is a 400 like an unknown one.
 */
import type { Request } from 'express';
import { z } from 'zod';
import type { NewSchedule, Schedule } from '../../contract/notify.js';
import type { ScheduleService } from '../../notify/schedule-service.js';
import type { ApiBuilder, ValidRequest } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.uuid('must be a schedule id') });
/** Most channels one schedule sends to. */
const MAX_SCHEDULE_CHANNELS = 10;
const createBody = z.strictObject({
  preset_id: z.uuid('must be a preset id').describe('One of your presets (GET /screen/presets)'),
  at: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (24 h, Korea time), e.g. 15:40').describe('Time of day, Korea time (KST)'),
  channels: z
    .array(z.uuid('must be a channel id'), { error: 'must be an array of channel ids' })
    .min(1, 'give at least one channel')
    .max(MAX_SCHEDULE_CHANNELS, `at most ${MAX_SCHEDULE_CHANNELS} channels`),
});

/** A schedule in the OpenAPI document. */
export const scheduleSchema = z
  .object({
    id: z.string(), preset_id: z.string(), preset_name: z.string(), at: z.string().describe('HH:MM, Korea time'), channels: z.array(z.string()),
    last_run: z.object({ trade_date: z.string(), ran_at: z.string(), members: z.number(), entered: z.number(), left: z.number() }).nullable(),
    next_run_at: z.string().describe('When it runs next: the next trading day\'s `at` time, Korea time, or now when due'), created_at: z.string(),
  })
  .meta({ id: 'Schedule' });

/** Register the schedule routes. */
export function registerScheduleRoutes(api: ApiBuilder, deps: { schedules: ScheduleService }): void {
  const tags = ['notifications'];
  const { schedules } = deps;
  const idOf = (req: ValidRequest<{ params: z.output<typeof idParams> }>) => req.valid.params.id;
  api.route({ method: 'get', path: '/schedules', summary: 'Your digest schedules with their last and next run', tags, access: 'user', response: z.array(scheduleSchema) }, async (req, res) => {
    sendSuccess<Schedule[]>(req, res, await schedules.list(req.user!.id));
  });
  api.route(
    {
      method: 'post', path: '/schedules', summary: 'Schedule a daily digest of a preset (trading days, Korea time)', tags, access: 'user', body: createBody, status: 201, response: scheduleSchema, errors: [403],
      description:
        'Runs the preset at `at` on every KRX trading day (weekends and holidays skipped) and sends its members, and what entered and left since the previous run, ' +
        'to each channel (a webhook receives `schedule.digest`). Once per day across daemons. Schedules per user are capped by tier (`schedule_caps`: free 2, basic 10, pro 50): over → 403.',
    },
    async (req, res) => sendSuccess<Schedule>(req, res, await schedules.create({ id: req.user!.id, tier: req.user!.tier }, req.valid.body), { status: 201 }),
  );
  api.route({ method: 'get', path: '/schedules/:id', summary: 'One digest schedule', tags, access: 'user', params: idParams, response: scheduleSchema, errors: [404] }, async (req, res) => {
    sendSuccess<Schedule>(req, res, await schedules.get(req.user!.id, idOf(req)));
  });
  api.route({ method: 'delete', path: '/schedules/:id', summary: 'Delete a digest schedule', tags, access: 'user', params: idParams, status: 204, errors: [404] }, async (req, res) => {
    await schedules.delete(req.user!.id, idOf(req));
    res.status(204).end();
  });
}
