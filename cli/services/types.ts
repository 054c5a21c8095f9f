/**
 * Wire shapes the CLI reads, written from spec/service-interface.md (the CLI talks to
 * the daemon over HTTP only, so it does not import the daemon's schemas).
 */

/** Account tiers (spec "Tier limits"). */
export const TIERS = ['free', 'basic', 'pro', 'enterprise'] as const;
/** An account tier. */
export type Tier = (typeof TIERS)[number];
/** Account roles. */
export const ROLES = ['user', 'admin'] as const;
/** An account role. */
export type Role = (typeof ROLES)[number];

/** A user as the API shows it. */
export interface PublicUser {
  id: string;
  email: string;
  name: string | null;
  tier: Tier;
  role: Role;
  rate_limit_per_hour?: number | null;
  /** End of a load-test exemption in force (issue 20), else null. */
  loadtest_exempt_until?: string | null;
  created_at: string;
  updated_at?: string;
}

/** The token response of login and refresh (spec "Token response"). */
export interface TokenPair {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in?: number;
}

/** The success envelope (spec "Response envelope"). */
export interface Envelope<T> {
  status: 'success';
  data: T;
  meta: { timestamp: string; request_id: string; [extra: string]: unknown };
}

/** Paging fields in `meta` of list endpoints. */
export interface PageMeta {
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
}
