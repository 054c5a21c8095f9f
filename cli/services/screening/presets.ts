/**
 * Saved screen presets: list, save, show, delete, run. Presets are
 * named on the command line by id or by name; names are looked up in the user's list.
 */
import type { NewPreset, Preset } from '../../../daemon/contract/presets.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { CliError, usageError } from '../session/errors.js';
import type { Session } from '../session/session.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE = `${API_PREFIX}/screen/presets`;

/** GET /screen/presets: the caller's presets. */
export async function listPresets(session: Session): Promise<ApiResponse<Preset[]>> {
  return session.api.request<Preset[]>({ path: BASE });
}

/**
 * POST /screen/presets.
 * @throws CliError USAGE for an empty name; CONFLICT for a name already used; INVALID_REQUEST for a bad query
 */
export async function savePreset(session: Session, input: NewPreset): Promise<ApiResponse<Preset>> {
  const name = input.name.trim();
  if (name === '') throw usageError('the preset name is empty');
  const body: NewPreset = { name, query: input.query, ...(input.description !== undefined ? { description: input.description } : {}) };
  return session.api.request<Preset>({ method: 'POST', path: BASE, body });
}

/**
 * The id of the preset named `ref` (an id, or a name: exact match first, then case-insensitive).
 * @throws CliError NOT_FOUND when the user has no such preset
 */
export async function resolvePresetId(session: Session, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const presets = (await listPresets(session)).data;
  const match = presets.find((p) => p.name === ref) ?? presets.find((p) => p.name.toLowerCase() === ref.trim().toLowerCase());
  if (match) return match.id;
  throw new CliError({ code: 'NOT_FOUND', message: `no preset named "${ref}"`, hint: 'list yours with `stockscreen presets list`' });
}

/** GET /screen/presets/{id} for an id or name. @throws CliError NOT_FOUND */
export async function getPreset(session: Session, ref: string): Promise<ApiResponse<Preset>> {
  const id = await resolvePresetId(session, ref);
  return session.api.request<Preset>({ path: `${BASE}/${encodeURIComponent(id)}` });
}

/** DELETE /screen/presets/{id} for an id or name; returns the id deleted. @throws CliError NOT_FOUND */
export async function deletePreset(session: Session, ref: string): Promise<string> {
  const id = await resolvePresetId(session, ref);
  await session.api.request({ method: 'DELETE', path: `${BASE}/${encodeURIComponent(id)}` });
  return id;
}
