/** Accounts and tokens on the wire: /auth/*, /users/me and /admin/users, /admin/loadtest-exemptions. */
import type { Role, Tier } from '../kernel/roles.js';

export { ROLES, TIERS, type Role, type Tier } from '../kernel/roles.js';

/** A user as the API shows it: no secrets; the load-test exemption's end only while it is in force. */
export interface PublicUser {
  id: string;
  email: string;
  name: string | null;
  tier: Tier;
  role: Role;
  rate_limit_per_hour: number | null;
  /** End (ISO time) of a load-test exemption in force, else null. */
  loadtest_exempt_until: string | null;
  created_at: string;
  updated_at: string;
}

/** The token response of login and refresh with the rotating refresh token. */
export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  /** Seconds the access token is valid. */
  expires_in: number;
  refresh_token: string;
  /** Seconds the refresh token is valid. */
  refresh_expires_in: number;
}

/** Body of PATCH /admin/users/{id}: the fields an admin may change. */
export interface AdminUserPatch {
  tier?: Tier;
  role?: Role;
  rate_limit_per_hour?: number | null;
}

/** One load-test exemption as GET /admin/loadtest-exemptions and PUT …/loadtest-exemption show it. */
export interface LoadtestExemption {
  user_id: string;
  email: string;
  tier: string;
  /** ISO time the exemption ends by itself. */
  expires_at: string;
  remaining_s: number;
  /** Email of the admin who granted it. */
  granted_by: string | null;
}
