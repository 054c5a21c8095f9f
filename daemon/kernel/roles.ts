/** Who a caller is: account tiers and roles (shared vocabulary; imports nothing). */

/** Account tiers. */
export const TIERS = ['free', 'basic', 'pro', 'enterprise'] as const;
/** An account tier. */
export type Tier = (typeof TIERS)[number];
/** Roles: admins may use /admin endpoints. */
export const ROLES = ['user', 'admin'] as const;
/** A role. */
export type Role = (typeof ROLES)[number];
