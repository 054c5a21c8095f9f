/** Users repository: accounts with tier, role and an optional custom hourly limit. */
import { randomUUID } from 'node:crypto';
import type { PublicUser } from '../contract/users.js';
import type { Role, Tier } from '../kernel/roles.js';
import type { Db } from './db.js';

/** A stored user, password hash included (never sent to clients). */
export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string;
  tier: Tier;
  role: Role;
  rate_limit_per_hour: number | null;
  /** ISO time a load-test exemption ends (null: none was granted; past: expired). */
  loadtest_exempt_until: string | null;
  /** Email of the admin who granted the exemption. */
  loadtest_exempt_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A user as the API shows it (daemon/contract/users.ts): UserRow without its secrets. */
export type { PublicUser } from '../contract/users.js';

/** Fields an admin may change. */
export interface UserPatch {
  tier?: Tier;
  role?: Role;
  rate_limit_per_hour?: number | null;
  password_hash?: string;
  name?: string | null;
  loadtest_exempt_until?: string | null;
  loadtest_exempt_by?: string | null;
}

/** Users repository. */
export interface UsersRepo {
  /** @throws the driver's unique-violation error on a duplicate email (see isUniqueViolation) */
  create(input: { email: string; name: string | null; password_hash: string; tier?: Tier; role?: Role }): Promise<UserRow>;
  findByEmail(email: string): Promise<UserRow | undefined>;
  findById(id: string): Promise<UserRow | undefined>;
  list(options: { limit: number; offset: number }): Promise<{ users: UserRow[]; total: number }>;
  update(id: string, patch: UserPatch): Promise<UserRow | undefined>;
  /** Delete an account and (by cascade) everything it owns; resolves false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Accounts whose load-test exemption ends after `nowIso`, soonest first. */
  listExempt(nowIso: string): Promise<UserRow[]>;
}

/** Whether the account's load-test exemption is in force at `nowMs`. */
export function isLoadtestExempt(row: Pick<UserRow, 'loadtest_exempt_until'>, nowMs: number): boolean {
  return row.loadtest_exempt_until !== null && Date.parse(row.loadtest_exempt_until) > nowMs;
}

/** Strip secrets from a user row. */
export function toPublicUser(row: UserRow, nowMs: number = Date.now()): PublicUser {
  const { password_hash: _omit, loadtest_exempt_by: _by, ...rest } = row;
  return { ...rest, loadtest_exempt_until: isLoadtestExempt(row, nowMs) ? row.loadtest_exempt_until : null };
}

/** Create the users repository over sqlite. */
export function createUsersRepo(db: Db): UsersRepo {
  return {
    async create(input) {
      const now = new Date().toISOString();
      const row: UserRow = {
        id: randomUUID(),
        email: input.email,
        name: input.name,
        password_hash: input.password_hash,
        tier: input.tier ?? 'free',
        role: input.role ?? 'user',
        rate_limit_per_hour: null,
        loadtest_exempt_until: null,
        loadtest_exempt_by: null,
        created_at: now,
        updated_at: now,
      };
      await db.run(
        `INSERT INTO users (id, email, name, password_hash, tier, role, rate_limit_per_hour, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [row.id, row.email, row.name, row.password_hash, row.tier, row.role, null, now, now],
      );
      return row;
    },
    findByEmail: (email) => db.get<UserRow>('SELECT * FROM users WHERE lower(email) = lower(?)', [email]),
    findById: (id) => db.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]),
    async list({ limit, offset }) {
      const users = await db.all<UserRow>('SELECT * FROM users ORDER BY created_at, id LIMIT ? OFFSET ?', [limit, offset]);
      const total = (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users'))?.n ?? 0;
      return { users, total };
    },
    async update(id, patch) {
      const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
      if (entries.length > 0) {
        const sets = entries.map(([k]) => `${k} = ?`).join(', ');
        await db.run(`UPDATE users SET ${sets}, updated_at = ? WHERE id = ?`, [
          ...entries.map(([, v]) => v),
          new Date().toISOString(),
          id,
        ]);
      }
      return db.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]);
    },
    async delete(id) {
      const existed = (await db.get('SELECT id FROM users WHERE id = ?', [id])) !== undefined;
      if (existed) await db.run('DELETE FROM users WHERE id = ?', [id]);
      return existed;
    },
    listExempt: (nowIso) =>
      db.all<UserRow>('SELECT * FROM users WHERE loadtest_exempt_until > ? ORDER BY loadtest_exempt_until, id', [nowIso]),
  };
}
