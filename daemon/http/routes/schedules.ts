/**
 * Digest schedules: run one of your presets at a time of day (Korea time) on KRX trading days
 * and send its members, with what entered and left since the previous run, to your channels.
 * Another user's schedule is a 404; another user's preset or channel is a 400 like an unknown one.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { NewSchedule, Schedule } from '../../contract/notify.js';
import type { ScheduleService } from '../../notify/schedule-service.js';
import type { ApiBuilder, ValidRequest } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.uuid('must be a schedule id') });
/** Register the schedule routes. */
export function registerScheduleRoutes(api: ApiBuilder, deps: { schedules: ScheduleService }): void {
  const tags = ['notifications'];
  const { schedules } = deps;
  const idOf = (req: ValidRequest<{ params: z.output<typeof idParams> }>) => req.valid.params.id;
  api.route({ method: 'get', path: '/schedules', summary: 'Your digest schedules with their last and next run', tags, access: 'user', response: z.array(Schedule) }, async (req, res) => {
    sendSuccess<Schedule[]>(req, res, await schedules.list(req.user!.id));
  });
  api.route(
    {
      method: 'post', path: '/schedules', summary: 'Schedule a daily digest of a preset (trading days, Korea time)', tags, access: 'user', body: NewSchedule, status: 201, response: Schedule, errors: [403],
      description:
        'Runs the preset at `at` on every KRX trading day (weekends and holidays skipped) and sends its members, and what entered and left since the previous run, ' +
        'to each channel (a webhook receives `schedule.digest`). Once per day across daemons. Schedules per user are capped by tier (`schedule_caps`: free 2, basic 10, pro 50): over → 403.',
    },
    async (req, res) => sendSuccess<Schedule>(req, res, await schedules.create({ id: req.user!.id, tier: req.user!.tier }, req.valid.body), { status: 201 }),
  );
  api.route({ method: 'get', path: '/schedules/:id', summary: 'One digest schedule', tags, access: 'user', params: idParams, response: Schedule, errors: [404] }, async (req, res) => {
    sendSuccess<Schedule>(req, res, await schedules.get(req.user!.id, idOf(req)));
  });
  api.route({ method: 'delete', path: '/schedules/:id', summary: 'Delete a digest schedule', tags, access: 'user', params: idParams, status: 204, errors: [404] }, async (req, res) => {
    await schedules.delete(req.user!.id, idOf(req));
    res.status(204).end();
  });
}
