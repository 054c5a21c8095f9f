/** Refresh-token repository: hashed, single-use tokens grouped in rotation families. */
import type { Db } from './db.js';

/** A stored refresh token (only its hash is kept). */
export interface RefreshTokenRow {
  id: string;
  family_id: string;
  user_id: string;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

/** Refresh-token repository. */
export interface RefreshTokensRepo {
  insert(row: Omit<RefreshTokenRow, 'used_at' | 'revoked_at'>): Promise<void>;
  find(id: string): Promise<RefreshTokenRow | undefined>;
  /** Marks the token used; false when it was already used or revoked (a concurrent reuse). */
  markUsed(id: string, at: string): Promise<boolean>;
  revokeFamily(familyId: string, at: string): Promise<void>;
  revokeUser(userId: string, at: string): Promise<void>;
}

/** Create the refresh-token repository over sqlite. */
export function createRefreshTokensRepo(db: Db): RefreshTokensRepo {
  return {
    async insert(row) {
      await db.run(
        `INSERT INTO refresh_tokens (id, family_id, user_id, token_hash, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
        [row.id, row.family_id, row.user_id, row.token_hash, row.expires_at, row.created_at],
      );
    },
    find: (id) => db.get<RefreshTokenRow>('SELECT * FROM refresh_tokens WHERE id = ?', [id]),
    async markUsed(id, at) {
      const r = await db.run('UPDATE refresh_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL AND revoked_at IS NULL', [at, id]);
      return r.changes === 1;
    },
    async revokeFamily(familyId, at) {
      await db.run('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL', [at, familyId]);
    },
    async revokeUser(userId, at) {
      await db.run('UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', [at, userId]);
    },
  };
}
