/** Authentication routes: register, login, refresh, logout, users/me. */
import { z } from 'zod';
import type { AuthService } from '../../auth/auth-service.js';
import { AppError } from '../../errors.js';
import type { UsersRepo } from '../../store/users-repo.js';
import { toPublicUser } from '../../store/users-repo.js';
import type { ApiBuilder } from '../api.js';
import { NO_STORE } from '../middleware/security-headers.js';
import { sendSuccess } from '../envelope.js';
import { PublicUser, TokenPair } from '../../contract/users.js';
import { loginBody, logoutBody, refreshBody, registerBody } from '../schemas/users.js';

/** Collaborators of the auth routes. */
export interface AuthRoutesDeps {
  auth: AuthService;
  users: UsersRepo;
}

/** The spec shows the token fields bare; they are repeated at the top level beside the envelope. */
function bare(tokens: TokenPair) {
  return { access_token: tokens.access_token, token_type: tokens.token_type, expires_in: tokens.expires_in };
}

/** Register the auth and users routes. */
export function registerAuthRoutes(api: ApiBuilder, deps: AuthRoutesDeps): void {
  api.route(
    { method: 'post', path: '/auth/register', summary: 'Create an account', tags: ['auth'], headers: NO_STORE, access: 'public', body: registerBody, response: PublicUser, status: 201, errors: [409] },
    async (req, res) => {
      const body = req.valid.body;
      sendSuccess<PublicUser>(req, res, await deps.auth.register(body), { status: 201 });
    },
  );
  api.route(
    {
      method: 'post', path: '/auth/login', summary: 'Log in with email and password', tags: ['auth'], headers: NO_STORE, access: 'public', body: loginBody, response: TokenPair, errors: [401],
      description: 'Returns the token response in `data`; `access_token`, `token_type` and `expires_in` are also repeated at the top level of the body for clients of the bare shape.',
    },
    async (req, res) => {
      const { email, password } = req.valid.body;
      const { tokens } = await deps.auth.login(email, password);
      sendSuccess(req, res, tokens, { top: bare(tokens) });
    },
  );
  api.route(
    { method: 'post', path: '/auth/refresh', summary: 'Exchange a refresh token for a new pair (rotation; reuse revokes the family)', tags: ['auth'], headers: NO_STORE, access: 'public', body: refreshBody, response: TokenPair, errors: [401] },
    async (req, res) => {
      const { refresh_token } = req.valid.body;
      const tokens = await deps.auth.refresh(refresh_token);
      sendSuccess(req, res, tokens, { top: bare(tokens) });
    },
  );
  api.route(
    { method: 'post', path: '/auth/logout', summary: 'Revoke the current access token and the given refresh token family', tags: ['auth'], headers: NO_STORE, access: 'user', body: logoutBody, status: 204 },
    async (req, res) => {
      const { refresh_token } = req.valid.body;
      await deps.auth.logout(req.user!, refresh_token);
      res.status(204).end();
    },
  );
  api.route(
    { method: 'get', path: '/users/me', summary: 'The account behind the token', tags: ['users'], headers: NO_STORE, access: 'user', response: PublicUser },
    async (req, res) => {
      const row = await deps.users.findById(req.user!.id);
      if (!row) throw new AppError('UNAUTHORIZED', 'Account no longer exists');
      sendSuccess<PublicUser>(req, res, toPublicUser(row));
    },
  );
}
