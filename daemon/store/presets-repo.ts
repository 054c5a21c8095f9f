/** Screen presets repository: every read and write is scoped to the owner. */
import { randomUUID } from 'node:crypto';
import type { Preset } from '../contract/presets.js';
import { isUniqueViolation, type Db } from './db.js';

/** A saved screen (daemon/contract/presets.ts). */
export type { Preset } from '../contract/presets.js';

interface PresetRow extends Omit<Preset, 'query'> {
  query_json: string;
}

/** Result of a write that may hit the per-owner unique name. */
export type PresetWrite = { ok: true; preset: Preset } | { ok: false; reason: 'duplicate_name' | 'not_found' };

/** Presets repository. */
export interface PresetsRepo {
  list(userId: string): Promise<Preset[]>;
  get(userId: string, id: string): Promise<Preset | undefined>;
  findByName(userId: string, name: string): Promise<Preset | undefined>;
  create(userId: string, input: { name: string; description: string | null; query: Record<string, unknown> }): Promise<PresetWrite>;
  update(userId: string, id: string, patch: { name?: string; description?: string | null; query?: Record<string, unknown> }): Promise<PresetWrite>;
  delete(userId: string, id: string): Promise<boolean>;
}

const toPreset = ({ query_json, ...row }: PresetRow): Preset => ({ ...row, query: JSON.parse(query_json) as Record<string, unknown> });
const COLS = 'id, name, description, query_json, created_at, updated_at';

/** Create the presets repository. */
export function createPresetsRepo(db: Db): PresetsRepo {
  const get = async (userId: string, id: string) => {
    const row = await db.get<PresetRow>(`SELECT ${COLS} FROM screen_presets WHERE user_id = ? AND id = ?`, [userId, id]);
    return row && toPreset(row);
  };
  return {
    async list(userId) {
      return (await db.all<PresetRow>(`SELECT ${COLS} FROM screen_presets WHERE user_id = ? ORDER BY name`, [userId])).map(toPreset);
    },
    get,
    async findByName(userId, name) {
      const row = await db.get<PresetRow>(`SELECT ${COLS} FROM screen_presets WHERE user_id = ? AND name = ?`, [userId, name]);
      return row && toPreset(row);
    },
    async create(userId, input) {
      const now = new Date().toISOString();
      const id = randomUUID();
      try {
        await db.run('INSERT INTO screen_presets (id, user_id, name, description, query_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          id, userId, input.name, input.description, JSON.stringify(input.query), now, now,
        ]);
      } catch (err) {
        if (isUniqueViolation(err)) return { ok: false, reason: 'duplicate_name' };
        throw err;
      }
      return { ok: true, preset: { id, name: input.name, description: input.description, query: input.query, created_at: now, updated_at: now } };
    },
    async update(userId, id, patch) {
      const sets: string[] = [];
      const params: unknown[] = [];
      if (patch.name !== undefined) (sets.push('name = ?'), params.push(patch.name));
      if (patch.description !== undefined) (sets.push('description = ?'), params.push(patch.description));
      if (patch.query !== undefined) (sets.push('query_json = ?'), params.push(JSON.stringify(patch.query)));
      try {
        const r = await db.run(`UPDATE screen_presets SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE user_id = ? AND id = ?`, [...params, new Date().toISOString(), userId, id]);
        if (r.changes === 0) return { ok: false, reason: 'not_found' };
      } catch (err) {
        if (isUniqueViolation(err)) return { ok: false, reason: 'duplicate_name' };
        throw err;
      }
      const preset = await get(userId, id);
      return preset ? { ok: true, preset } : { ok: false, reason: 'not_found' };
    },
    async delete(userId, id) {
      return (await db.run('DELETE FROM screen_presets WHERE user_id = ? AND id = ?', [userId, id])).changes === 1;
    },
  };
}
