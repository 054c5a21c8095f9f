/** Saved screen presets: CRUD scoped to the owner (another user's id is a 404), and run. */
import { z } from 'zod';
import { AppError, notFound } from '../../errors.js';
import type { Tier } from '../../kernel/roles.js';
import type { ScreenService } from '../../screening/engine/screen-service.js';
import { NewPreset, Preset, PresetPatch } from '../../contract/presets.js';
import { ScreenBody } from '../../contract/screening.js';
import type { PresetsRepo, PresetWrite } from '../../store/presets-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';
import { answerScreen, freeWhenCached, screenRun, screenWeights, SCREEN_BODY_LIMIT } from './screen.js';

const idParams = z.object({ id: z.uuid('must be a preset id') });

function unwrap(write: PresetWrite, id?: string): Preset {
  if (write.ok) return write.preset;
  if (write.reason === 'duplicate_name') throw new AppError('CONFLICT', 'You already have a preset with this name', { name: 'already used' });
  throw notFound('Preset', { id });
}

/** Register the preset routes. */
export function registerPresetRoutes(
  api: ApiBuilder,
  deps: { presets: PresetsRepo; screens: ScreenService; onChange?: (presetId: string) => Promise<void> },
): void {
  const tags = ['presets'];
  // The saved query is validated at save time, so a preset always runs.
  const checkQuery = (query: Record<string, unknown>, tier: Tier) => {
    try {
      deps.screens.parse(query, tier);
    } catch (err) {
      if (err instanceof AppError) throw new AppError('INVALID_REQUEST', `Invalid query: ${err.message}`, Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`query.${k}`, v])));
      throw err;
    }
  };

  api.route({ method: 'get', path: '/screen/presets', summary: 'Your saved presets', tags, access: 'user', response: z.array(Preset) }, async (req, res) => {
    sendSuccess(req, res, await deps.presets.list(req.user!.id));
  });
  api.route(
    { method: 'post', path: '/screen/presets', summary: 'Save a preset', tags, access: 'user', body: NewPreset, response: Preset, status: 201, errors: [409] },
    async (req, res) => {
      const body = req.valid.body;
      checkQuery(body.query, req.user!.tier);
      sendSuccess(req, res, unwrap(await deps.presets.create(req.user!.id, { name: body.name, description: body.description ?? null, query: body.query })), { status: 201 });
    },
  );
  api.route({ method: 'get', path: '/screen/presets/:id', summary: 'One preset', tags, access: 'user', params: idParams, response: Preset, errors: [404] }, async (req, res) => {
    const { id } = req.valid.params;
    const preset = await deps.presets.get(req.user!.id, id);
    if (!preset) throw notFound('Preset', { id });
    sendSuccess(req, res, preset);
  });
  api.route(
    { method: 'put', path: '/screen/presets/:id', summary: 'Update a preset (partial)', tags, access: 'user', params: idParams, body: PresetPatch, response: Preset, errors: [404, 409] },
    async (req, res) => {
      const { id } = req.valid.params;
      const body = req.valid.body;
      if (body.query) checkQuery(body.query, req.user!.tier);
      const preset = unwrap(await deps.presets.update(req.user!.id, id, body), id);
      // Alerts on the preset's screen follow its new query (and name).
      await deps.onChange?.(id);
      sendSuccess(req, res, preset);
    },
  );
  api.route({ method: 'delete', path: '/screen/presets/:id', summary: 'Delete a preset (and its screen alerts; their firing history is kept)', tags, access: 'user', params: idParams, status: 204, errors: [404] }, async (req, res) => {
    const { id } = req.valid.params;
    if (!(await deps.presets.delete(req.user!.id, id))) throw notFound('Preset', { id });
    // Its screen alerts were deleted with it (ON DELETE CASCADE): stop watching them.
    await deps.onChange?.(id);
    res.status(204).end();
  });
  api.route(
    {
      method: 'post', path: '/screen/presets/:id/run', summary: 'Run a saved preset', tags, access: 'user', params: idParams, errors: [404, 503], response: ScreenBody, raw: true,
      bodyLimit: SCREEN_BODY_LIMIT, freeWhen: freeWhenCached(deps.screens), ...screenWeights(deps.screens),
      // The "body" of a run is the saved query: loaded and parsed once, like a /screen body.
      description: 'The body may give {as_of: "YYYY-MM-DD"} to run the preset as of that date; any other key is ignored.',
      parseBody: async (body, req) => {
        const { id } = req.valid.params;
        const preset = await deps.presets.get(req.user!.id, id);
        if (!preset) throw notFound('Preset', { id });
        const asOf = (body as { as_of?: unknown } | null | undefined)?.as_of;
        return screenRun(deps.screens.compile(asOf === undefined || asOf === null ? preset.query : { ...preset.query, as_of: asOf }, req.user!.tier));
      },
    },
    (req, res) => answerScreen(req, res, deps.screens),
  );
}
