/**
 * The account request bodies that need the daemon's own rules (the common-password list); the
 * user and token shapes themselves are in daemon/contract/users.ts.
 */
import { z } from 'zod';
import { isCommonPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../auth/passwords.js';

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
