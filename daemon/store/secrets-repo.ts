/** Secrets shared by every process of a deployment (e.g. a generated JWT signing key). */
import type { Db } from './db.js';

/** Secrets repository. */
export interface SecretsRepo {
  /** The stored value of `name`; the first caller's `generate()` wins when several start at once. */
  getOrCreate(name: string, generate: () => string): Promise<string>;
}

/** Create the secrets repository. */
export function createSecretsRepo(db: Db): SecretsRepo {
  return {
    async getOrCreate(name, generate) {
      await db.run('INSERT INTO app_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [name, generate(), new Date().toISOString()]);
      const row = await db.get<{ value: string }>('SELECT value FROM app_secrets WHERE name = ?', [name]);
      if (!row) throw new Error(`secret ${name} vanished right after it was stored`);
      return row.value;
    },
  };
}
