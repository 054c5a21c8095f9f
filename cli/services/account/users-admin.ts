/** Admin user management: GET /admin/users and PATCH /admin/users/{id}, with email → id lookup. */
import type { PageMeta } from '../../../daemon/contract/envelope.js';
import { MAX_PAGE_LIMIT } from '../../../daemon/contract/envelope.js';
import type { AdminUserPatch, PublicUser, Role, Tier } from '../../../daemon/contract/users.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { CliError } from '../session/errors.js';
import type { Session } from '../session/session.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Largest page the API serves. */
const MAX_PAGE = MAX_PAGE_LIMIT;

/** Paging of a list call. */
export interface PageOptions {
  page?: number;
  limit?: number;
}

/**
 * GET /admin/users (one page).
 * @throws CliError FORBIDDEN for a non-admin, UNAUTHORIZED when logged out
 */
export async function listUsers(session: Session, options: PageOptions = {}): Promise<ApiResponse<PublicUser[]>> {
  return session.api.request<PublicUser[]>({ path: `${API_PREFIX}/admin/users`, query: { page: options.page, limit: options.limit } });
}

/**
 * The id of the user named by an id or an email (emails are looked up page by page).
 * @throws CliError NOT_FOUND when no account has that email
 */
export async function resolveUserId(session: Session, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const email = ref.trim().toLowerCase();
  for (let page = 1; ; page++) {
    const res = await listUsers(session, { page, limit: MAX_PAGE });
    const match = res.data.find((u) => u.email.toLowerCase() === email);
    if (match) return match.id;
    const meta = (res.body as { meta?: Partial<PageMeta> }).meta;
    if (res.data.length < MAX_PAGE || !meta?.total_pages || page >= meta.total_pages) break;
  }
  throw new CliError({ code: 'NOT_FOUND', message: `no account with email ${email}`, hint: 'list accounts with `stockscreen admin users list`' });
}

/**
 * PATCH /admin/users/{id} for the user named by id or email.
 * @throws CliError NOT_FOUND, FORBIDDEN, INVALID_REQUEST
 */
export async function updateUser(session: Session, ref: string, patch: AdminUserPatch): Promise<ApiResponse<PublicUser>> {
  const id = await resolveUserId(session, ref);
  return session.api.request<PublicUser>({ method: 'PATCH', path: `${API_PREFIX}/admin/users/${encodeURIComponent(id)}`, body: patch });
}
