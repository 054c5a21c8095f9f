/**
 * Load-test exemptions: an admin lets one account run a load test for a while
 * without the tier and endpoint rate limits. The exemption lives on the account row, ends by
 * itself at `expires_at`, is listed here, and every grant and revocation is logged. Anonymous
 * callers can never be exempt: the limiter reads the exemption from the caller's account.
 */
import type { Request } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ExemptionGrant, LoadtestExemption } from '../../contract/users.js';
import { notFound } from '../../errors.js';
import { isLoadtestExempt, type UserRow, type UsersRepo } from '../../store/users-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.string().uuid('must be a user id (uuid)') });

/** An account's exemption on the wire. */
export function toExemption(row: UserRow, nowMs: number): LoadtestExemption {
  const until = row.loadtest_exempt_until ?? new Date(nowMs).toISOString();
  return {
    user_id: row.id,
    email: row.email,
    tier: row.tier,
    expires_at: until,
    remaining_s: Math.max(0, Math.ceil((Date.parse(until) - nowMs) / 1000)),
    granted_by: row.loadtest_exempt_by,
  };
}

/** Dependencies of the exemption routes. */
export interface LoadtestExemptionDeps {
  users: UsersRepo;
  logger: Logger;
  /** Wall-clock time in ms (default Date.now). */
  now?: () => number;
}

async function adminEmail(deps: LoadtestExemptionDeps, req: Request): Promise<string | null> {
  return req.user ? ((await deps.users.findById(req.user.id))?.email ?? null) : null;
}

/**
 * Register GET /admin/loadtest-exemptions, PUT and DELETE /admin/users/{id}/loadtest-exemption.
 * PUT and DELETE throw AppError NOT_FOUND for an unknown account.
 */
export function registerLoadtestExemptionRoutes(api: ApiBuilder, deps: LoadtestExemptionDeps): void {
  const now = deps.now ?? Date.now;
  const tags = ['admin'];
  api.route(
    { method: 'get', path: '/admin/loadtest-exemptions', summary: 'List load-test exemptions in force', tags, access: 'admin', response: z.array(LoadtestExemption) },
    async (req, res) => {
      const at = now();
      const rows = await deps.users.listExempt(new Date(at).toISOString());
      sendSuccess(req, res, rows.filter((r) => isLoadtestExempt(r, at)).map((r) => toExemption(r, at)));
    },
  );
  api.route(
    {
      method: 'put', path: '/admin/users/:id/loadtest-exemption', summary: 'Exempt an account from rate limits for a while (load tests)', tags, access: 'admin',
      params: idParams, body: ExemptionGrant, response: LoadtestExemption, errors: [404],
      description: 'Until `expires_at` the account\'s requests are not counted against its tier or any endpoint limit. A new grant replaces the previous one.',
    },
    async (req, res) => {
      const { id } = req.valid.params;
      const { duration_s } = req.valid.body;
      if (!(await deps.users.findById(id))) throw notFound('User', { id });
      const at = now();
      const by = await adminEmail(deps, req);
      const until = new Date(at + duration_s * 1000).toISOString();
      const row = await deps.users.update(id, { loadtest_exempt_until: until, loadtest_exempt_by: by });
      if (!row) throw notFound('User', { id });
      deps.logger.info({ user: row.email, user_id: id, by, until }, 'load-test exemption granted');
      sendSuccess(req, res, toExemption(row, at));
    },
  );
  api.route(
    { method: 'delete', path: '/admin/users/:id/loadtest-exemption', summary: 'End an account\'s load-test exemption now', tags, access: 'admin', params: idParams, status: 204, errors: [404] },
    async (req, res) => {
      const { id } = req.valid.params;
      const row = await deps.users.findById(id);
      if (!row) throw notFound('User', { id });
      await deps.users.update(id, { loadtest_exempt_until: null, loadtest_exempt_by: null });
      deps.logger.info({ user: row.email, user_id: id, by: await adminEmail(deps, req) }, 'load-test exemption revoked');
      res.status(204).end();
    },
  );
}
