/** Admin user management: list users, change tier, role or a custom hourly limit. */
import { z } from 'zod';
import { AppError, invalidRequest, notFound } from '../../errors.js';
import { toPublicUser, type UsersRepo } from '../../store/users-repo.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';
import { PageQuery } from '../../contract/envelope.js';
import { AdminUserPatch, PublicUser } from '../../contract/users.js';

const idParams = z.object({ id: z.string().uuid('must be a user id (uuid)') });

/**
 * Register GET /admin/users, PATCH and DELETE /admin/users/{id}.
 * DELETE throws AppError NOT_FOUND for an unknown id, CONFLICT for the caller's own account.
 * PATCH throws AppError INVALID_REQUEST for a custom limit on a non-enterprise account, NOT_FOUND for an unknown id.
 */
export function registerAdminUserRoutes(api: ApiBuilder, deps: { users: UsersRepo }): void {
  api.route(
    { method: 'get', path: '/admin/users', summary: 'List accounts', tags: ['admin'], access: 'admin', query: PageQuery, response: z.array(PublicUser) },
    async (req, res) => {
      const { page, limit } = req.valid.query;
      const { users, total } = await deps.users.list({ limit, offset: (page - 1) * limit });
      sendSuccess<PublicUser[]>(req, res, users.map((u) => toPublicUser(u)), {
        meta: { total, page, per_page: limit, total_pages: Math.ceil(total / limit) },
      });
    },
  );
  api.route(
    {
      method: 'patch', path: '/admin/users/:id', summary: 'Change tier, role or custom hourly limit', tags: ['admin'], access: 'admin', params: idParams, body: AdminUserPatch, response: PublicUser, errors: [404],
      description:
        'rate_limit_per_hour is the custom hourly limit of an enterprise account (daily limit: 24 ×). Setting it on an account that is not ' +
        'enterprise after the patch answers 400 (it would have no effect); null clears it. Moving an account out of enterprise clears it.',
    },
    async (req, res) => {
      const { id } = req.valid.params;
      let patch = req.valid.body;
      const existing = await deps.users.findById(id);
      if (!existing) throw notFound('User', { id });
      if ((patch.tier ?? existing.tier) !== 'enterprise') {
        if (patch.rate_limit_per_hour != null) {
          throw invalidRequest('A custom hourly limit applies to enterprise accounts only', {
            rate_limit_per_hour: `applies to enterprise accounts only (this one is ${patch.tier ?? existing.tier}); send tier "enterprise" in the same request`,
          });
        }
        // A limit that no longer applies would only mislead whoever reads the account.
        if (existing.rate_limit_per_hour !== null) patch = { ...patch, rate_limit_per_hour: null };
      }
      const updated = await deps.users.update(id, patch);
      if (!updated) throw notFound('User', { id });
      sendSuccess<PublicUser>(req, res, toPublicUser(updated));
    },
  );
  api.route(
    {
      method: 'delete', path: '/admin/users/:id', summary: 'Delete an account with everything it owns', tags: ['admin'], access: 'admin', params: idParams, status: 204, errors: [404, 409],
      description: 'Used by `stockscreen loadtest --cleanup` for the accounts a load test created. An admin cannot delete their own account (409).',
    },
    async (req, res) => {
      const { id } = req.valid.params;
      if (id === req.user?.id) throw new AppError('CONFLICT', 'You cannot delete your own account', { id });
      if (!(await deps.users.delete(id))) throw notFound('User', { id });
      res.status(204).end();
    },
  );
}
