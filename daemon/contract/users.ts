/**
 * Accounts and tokens on the wire: /auth/*, /users/me and /admin/users, /admin/loadtest-exemptions.
 * One zod schema per shape: the routes validate and document with it, its type (`z.output`) is
 * what the daemon sends and the CLI reads. (The register and login bodies stay with the daemon:
 * their password rule reads the daemon's list of common passwords.)
 */
import { z } from 'zod';
import { ROLES, TIERS } from '../kernel/roles.js';

export { ROLES, TIERS, type Role, type Tier } from '../kernel/roles.js';

/** A user as the API shows it: no secrets; the load-test exemption's end only while it is in force. */
export const PublicUser = z
  .object({
    id: z.string().uuid(),
    email: z.string(),
    name: z.string().nullable(),
    tier: z.enum(TIERS),
    role: z.enum(ROLES),
    rate_limit_per_hour: z.number().int().nullable(),
    loadtest_exempt_until: z
      .string()
      .nullable()
      .meta({ description: 'End (ISO time) of a load-test exemption from the tier and endpoint rate limits; null when none is in force' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'User' });
export type PublicUser = z.output<typeof PublicUser>;

/** The token response of login and refresh with the rotating refresh token (lifetimes in seconds). */
export const TokenPair = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().meta({ example: 3600 }),
    refresh_token: z.string(),
    refresh_expires_in: z.number().int(),
  })
  .meta({ id: 'TokenPair' });
export type TokenPair = z.output<typeof TokenPair>;

/** Body of PATCH /admin/users/{id}: the fields an admin may change (at least one). */
export const AdminUserPatch = z
  .strictObject({
    tier: z.enum(TIERS).optional(),
    role: z.enum(ROLES).optional(),
    rate_limit_per_hour: z.number().int().positive().max(1e9).nullable().optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of tier, role, rate_limit_per_hour' });
export type AdminUserPatch = z.output<typeof AdminUserPatch>;

/** Longest load-test exemption an admin may grant at once (7 days). */
export const MAX_EXEMPTION_S = 7 * 86_400;

/** Body of PUT /admin/users/{id}/loadtest-exemption: how long the exemption lasts from now. */
export const ExemptionGrant = z.strictObject({
  duration_s: z
    .number()
    .int('must be whole seconds')
    .min(60, 'must be at least 60 seconds')
    .max(MAX_EXEMPTION_S, `must be at most ${MAX_EXEMPTION_S} seconds (7 days)`)
    .meta({ example: 7200 }),
});

/** One load-test exemption as GET /admin/loadtest-exemptions and PUT …/loadtest-exemption show it. */
export const LoadtestExemption = z
  .object({
    user_id: z.string().uuid(),
    email: z.string(),
    tier: z.string(),
    expires_at: z.string().meta({ description: 'ISO time the exemption ends by itself' }),
    remaining_s: z.number().int(),
    granted_by: z.string().nullable().meta({ description: 'Email of the admin who granted it' }),
  })
  .meta({ id: 'LoadtestExemption' });
export type LoadtestExemption = z.output<typeof LoadtestExemption>;
