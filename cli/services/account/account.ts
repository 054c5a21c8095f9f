/** Account logic behind register, login, logout and whoami. */
import type { PublicUser, TokenPair } from '../../../daemon/contract/users.js';
import { API_PREFIX, createApiClient, type ApiResponse } from '../transport/api-client.js';
import { credentialsFromTokens } from '../session/credentials.js';
import { CliError } from '../session/errors.js';
import type { Session } from '../session/session.js';

/** Email and password (and an optional display name for register). */
export interface AccountInput {
  email: string;
  password: string;
  name?: string;
}

/**
 * POST /auth/register.
 * @throws CliError CONFLICT for a taken email, INVALID_REQUEST for a weak password or bad email
 */
export async function registerAccount(session: Session, input: AccountInput): Promise<ApiResponse<PublicUser>> {
  const body = { email: input.email, password: input.password, ...(input.name ? { name: input.name } : {}) };
  return session.api.request<PublicUser>({
    method: 'POST', path: `${API_PREFIX}/auth/register`, body, auth: false,
    ifTimedOut: 'the account may have been created — try `stockscreen login` before registering again',
  });
}

/**
 * POST /auth/login, then save the pair under the session's profile (with the daemon URL).
 * @throws CliError UNAUTHORIZED for a wrong email or password
 */
export async function loginAccount(session: Session, input: AccountInput): Promise<ApiResponse<TokenPair>> {
  const res = await session.api
    .request<TokenPair>({
      method: 'POST',
      path: `${API_PREFIX}/auth/login`,
      body: { email: input.email, password: input.password },
      auth: false,
    })
    .catch((err: unknown) => {
      throw wrongPassword(err, input.email);
    });
  await session.store.save(session.profile, credentialsFromTokens(res.data, session.baseUrl, input.email.trim().toLowerCase()));
  return res;
}

/** A refused login says what to try, not "run stockscreen login". */
function wrongPassword(err: unknown, email: string): unknown {
  if (!(err instanceof CliError) || err.code !== 'UNAUTHORIZED') return err;
  return new CliError({
    code: err.code, status: err.status, requestId: err.requestId, details: err.details, message: err.message,
    hint: `check the password for ${email.trim().toLowerCase()} (passwords are case-sensitive), or register it first with \`stockscreen register --email ${email.trim().toLowerCase()}\``,
  });
}

/** Outcome of logout. */
export interface LogoutResult {
  /** False when the profile had no saved credentials. */
  wasLoggedIn: boolean;
  email?: string;
  /** False when the server had already rejected the tokens (they were dead anyway). */
  revoked: boolean;
}

/**
 * POST /auth/logout with the refresh token (revokes it and the access token), then delete
 * the saved credentials. A 401 means the tokens were already dead: still a logout.
 * @throws CliError when the daemon cannot be reached (credentials are kept so you can retry)
 */
export async function logoutAccount(session: Session): Promise<LogoutResult> {
  const saved = await session.store.get(session.profile);
  if (!saved) return { wasLoggedIn: false, revoked: false };
  // Tokens belong to the daemon that issued them, whatever --url says now.
  const api = saved.url === session.baseUrl ? session.api : createApiClient({ baseUrl: saved.url, tokens: { accessToken: async () => saved.access_token, renew: async () => undefined } });
  let revoked = true;
  try {
    await api.request({
      method: 'POST',
      path: `${API_PREFIX}/auth/logout`,
      // Read at send time: a renewal before the retry rotates the refresh token.
      body: async () => ({ refresh_token: (await session.store.get(session.profile))?.refresh_token ?? saved.refresh_token }),
    });
  } catch (err) {
    if (!(err instanceof CliError && err.code === 'UNAUTHORIZED')) throw err;
    revoked = false;
  }
  await session.store.remove(session.profile);
  return { wasLoggedIn: true, email: saved.email, revoked };
}

/**
 * GET /users/me.
 * @throws CliError NOT_LOGGED_IN / UNAUTHORIZED (exit 4) when there is no valid session
 */
export async function whoami(session: Session): Promise<ApiResponse<PublicUser>> {
  return session.api.request<PublicUser>({ path: `${API_PREFIX}/users/me` });
}
