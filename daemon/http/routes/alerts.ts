/**
 * Alert endpoints: price alerts and alerts on screens (`screen_enter`/
 * `screen_exit` on a preset); CRUD scoped to the caller (another user's alert is a 404),
 * per-tier caps on active alerts (403), and the firing history.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { thresholdProblem } from '../../alerts/alert-rules.js';
import { isScreenAlertType } from '../../kernel/alert-types.js';
import type { AlertOwner, AlertService, ChanneledAlert } from '../../alerts/alert-service.js';
import { Alert, AlertEventsQuery, AlertFiring, alertFields, AlertListQuery, AlertPatch, type NewAlert } from '../../contract/alerts.js';
import type { AlertFiringRecord } from '../../store/alerts-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

/** Collaborators of the alert routes. */
export interface AlertRoutesDeps {
  alerts: AlertService;
}

const { code, alertType, threshold, cooldown, membership, dwell, note, channels } = alertFields;
const idParams = z.object({ id: z.uuid('must be an alert id') });

const createBody = z
  .strictObject({
    code: code.optional().describe('The stock of a price alert (required for price alerts; not allowed for screen_enter/screen_exit)'),
    preset_id: z.uuid('must be a preset id').optional().describe('One of your presets: the live screen a screen_enter/screen_exit alert watches (required for those types only)'),
    alert_type: alertType,
    threshold: threshold.optional().describe('Required for price alerts; not allowed for screen_enter/screen_exit'),
    recurring: z.boolean().optional().describe('Fire again each time the condition becomes true again (a screen alert: each time a stock enters or exits again); default false: fire once'),
    cooldown_s: cooldown.optional().describe('Minimum seconds between two firings of a recurring alert (a screen alert: for the same stock)'),
    membership: membership.optional(),
    dwell_s: dwell.optional(),
    note: note.optional(),
    channels: channels.optional(),
  })
  .superRefine((v, ctx) => {
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    if (isScreenAlertType(v.alert_type)) {
      if (v.preset_id === undefined) issue('preset_id', `is required for ${v.alert_type}`);
      if (v.code !== undefined) issue('code', `not allowed for ${v.alert_type} (it fires for every stock entering or leaving the preset's screen)`);
      if (v.threshold !== undefined) issue('threshold', `not allowed for ${v.alert_type}`);
      return;
    }
    if (v.preset_id !== undefined) issue('preset_id', 'only for screen_enter and screen_exit');
    if (v.membership !== undefined) issue('membership', 'only for screen_enter and screen_exit');
    if (v.dwell_s !== undefined) issue('dwell_s', 'only for screen_enter and screen_exit');
    if (v.code === undefined) issue('code', `is required for ${v.alert_type}`);
    if (v.threshold === undefined) issue('threshold', `is required for ${v.alert_type}`);
    const problem = v.threshold === undefined ? null : thresholdProblem(v.alert_type, v.threshold);
    if (problem) issue('threshold', `${problem} for ${v.alert_type}`);
  })
  // The checks above make it one of the two shapes.
  .transform((v) => v as NewAlert);
/** An alert as the API shows it. */
function view(a: ChanneledAlert): Alert {
  const { user_id: _owner, last_fired_at, ...rest } = a;
  return { ...rest, last_fired_at: last_fired_at === null ? null : new Date(last_fired_at).toISOString() };
}

function eventView(e: AlertFiringRecord): AlertFiring {
  const { user_id: _owner, generation: _g, claim: _c, fired_at, ...rest } = e;
  return { ...rest, fired_at: new Date(fired_at).toISOString() };
}

function pageMeta(total: number, page: number, limit: number) {
  return { total, page, per_page: limit, total_pages: Math.ceil(total / limit) };
}

/** Register the alert routes. */
export function registerAlertRoutes(api: ApiBuilder, deps: AlertRoutesDeps): void {
  const tags = ['alerts'];
  const { alerts } = deps;
  const owner = (req: Request): AlertOwner => ({ id: req.user!.id, tier: req.user!.tier });

  api.route(
    { method: 'get', path: '/alerts', summary: 'Your alerts (filters: code, active, type; paginated)', tags, access: 'user', query: AlertListQuery, response: z.array(Alert) },
    async (req, res) => {
      const q = req.valid.query;
      const { items, total } = await alerts.list(req.user!.id, { code: q.code, active: q.active, alert_type: q.type, limit: q.limit, offset: (q.page - 1) * q.limit });
      sendSuccess(req, res, items.map(view), { meta: pageMeta(total, q.page, q.limit) });
    },
  );
  api.route(
    { method: 'post', path: '/alerts', summary: 'Create a price alert, or an alert on a preset\'s live screen (screen_enter/screen_exit)', tags, access: 'user', body: createBody,
      description:
        'A price alert: {code, alert_type, threshold}. An alert on a screen: {alert_type: "screen_enter"|"screen_exit", preset_id} (no code, no threshold): ' +
        'it fires for each stock that enters (leaves) the live screen of one of your presets — its filters, sort and per_page at live prices — after the alert is created; ' +
        'the alert message and firing carry the stock\'s code and the preset_id. Another user\'s or an unknown preset is a 400 with details.preset_id.', status: 201, response: Alert, errors: [403] },
    async (req, res) => sendSuccess(req, res, view(await alerts.create(owner(req), req.valid.body)), { status: 201 }),
  );
  // Before /alerts/:id, which would otherwise take "events" for an id.
  api.route(
    { method: 'get', path: '/alerts/events', summary: 'Firing history of all your alerts, newest first', tags, access: 'user', query: AlertEventsQuery, response: z.array(AlertFiring) },
    async (req, res) => {
      const q = req.valid.query;
      const { items, total } = await alerts.events(req.user!.id, { code: q.code, limit: q.limit, offset: (q.page - 1) * q.limit });
      sendSuccess(req, res, items.map(eventView), { meta: pageMeta(total, q.page, q.limit) });
    },
  );
  api.route(
    { method: 'get', path: '/alerts/:id', summary: 'One alert', tags, access: 'user', params: idParams, response: Alert, errors: [404] },
    async (req, res) => sendSuccess(req, res, view(await alerts.get(req.user!.id, req.valid.params.id))),
  );
  api.route(
    { method: 'put', path: '/alerts/:id', summary: 'Update an alert (threshold, active, recurring, note, cooldown_s, channels; a screen alert\'s membership and dwell_s)', tags, access: 'user', params: idParams, body: AlertPatch, response: Alert, errors: [403, 404] },
    async (req, res) => {
      const { id } = req.valid.params;
      sendSuccess(req, res, view(await alerts.update(owner(req), id, req.valid.body)));
    },
  );
  api.route(
    { method: 'delete', path: '/alerts/:id', summary: 'Delete an alert (its firing history is kept)', tags, access: 'user', params: idParams, status: 204, errors: [404] },
    async (req, res) => {
      await alerts.delete(req.user!.id, req.valid.params.id);
      res.status(204).end();
    },
  );
  api.route(
    { method: 'get', path: '/alerts/:id/events', summary: 'Firing history of one alert, newest first', tags, access: 'user', params: idParams, query: AlertEventsQuery.omit({ code: true }), response: z.array(AlertFiring), errors: [404] },
    async (req, res) => {
      const { id } = req.valid.params;
      const q = req.valid.query;
      const { items, total } = await alerts.events(req.user!.id, { alertId: id, limit: q.limit, offset: (q.page - 1) * q.limit });
      sendSuccess(req, res, items.map(eventView), { meta: pageMeta(total, q.page, q.limit) });
    },
  );
}
