/**
 * Screen presets on the wire: /screen/presets. The answer and the request bodies are zod
 * schemas: the routes validate and document with them, the CLI reads their types.
 */
import { z } from 'zod';

/** Most top-level keys of a saved query (shape B: one min_/max_ bound per indicator, plus the universe keys). */
export const MAX_PRESET_QUERY_KEYS = 500;

/** A saved screen. `query` is the screen body as the user sent it (either shape). */
export const Preset = z
  .object({ id: z.string(), name: z.string(), description: z.string().nullable(), query: z.record(z.string(), z.unknown()), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'Preset' });
export type Preset = z.output<typeof Preset>;

const name = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');
const description = z.string().max(1000, 'must be at most 1000 characters').nullable();
// Checked as a screening request at save time; the key count is bounded here so the map shows a maximum.
const query = z
  .record(z.string().max(100), z.unknown(), { error: 'must be a screening request object (shape A or B)' })
  .refine((q) => Object.keys(q).length <= MAX_PRESET_QUERY_KEYS, `must have at most ${MAX_PRESET_QUERY_KEYS} keys`)
  .meta({ maxProperties: MAX_PRESET_QUERY_KEYS });

/** Body of POST /screen/presets. */
export const NewPreset = z.strictObject({ name, description: description.optional(), query });
export type NewPreset = z.output<typeof NewPreset>;

/** Body of PUT /screen/presets/{id}: at least one field. */
export const PresetPatch = z
  .strictObject({ name: name.optional(), description: description.optional(), query: query.optional() })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of name, description, query' });
export type PresetPatch = z.output<typeof PresetPatch>;
