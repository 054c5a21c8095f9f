/** Wire schemas for users and tokens (validate requests and document responses). */
import { z } from 'zod';
import { isCommonPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../auth/passwords.js';
import { ROLES, TIERS } from '../../kernel/roles.js';

/** A user as the API shows it (no secrets). */
export const publicUserSchema = z
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

/** The token response with the rotating refresh token. */
export const tokenPairSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().meta({ example: 3600 }),
    refresh_token: z.string(),
    refresh_expires_in: z.number().int(),
  })
  .meta({ id: 'TokenPair' });

/** RFC 5321 caps a forward path at 256 octets, so an address at 254 characters (RFC 3696 errata 1690). */
export const MAX_EMAIL_LENGTH = 254;

const email = z
  .string()
  .max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`)
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'must be a valid email address' }))
  .meta({ example: 'trader@example.com' });

/** A new password: 10 to 256 characters and not one of the shipped common passwords (OWASP). */
const newPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`)
  .refine((p) => !isCommonPassword(p), 'is one of the most common passwords: choose another');

/** POST /auth/register body. */
export const registerBody = z.strictObject({
  email,
  password: newPassword,
  name: z.string().trim().min(1).max(100, 'must be at most 100 characters').optional(),
});

/** POST /auth/login body. */
export const loginBody = z.strictObject({
  email,
  password: z.string().min(1, 'is required').max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
});

/** POST /auth/refresh body. */
export const refreshBody = z.strictObject({ refresh_token: z.string().min(10, 'is required').max(512) });

/** POST /auth/logout body (the refresh token to revoke with its family). */
export const logoutBody = z.strictObject({ refresh_token: z.string().max(512).optional() });

/** PATCH /admin/users/{id} body. */
export const adminUserPatch = z
  .strictObject({
    tier: z.enum(TIERS).optional(),
    role: z.enum(ROLES).optional(),
    rate_limit_per_hour: z.number().int().positive().max(1e9).nullable().optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of tier, role, rate_limit_per_hour' });

/** Paging query (page 1-based). */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
