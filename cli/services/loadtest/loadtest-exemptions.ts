/** Load-test exemptions: grant, list and revoke over the admin API, and how they are shown. */
import type { LoadtestExemption } from '../../../daemon/contract/users.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { formatDuration } from '../output/duration.js';
import type { TableData } from '../output/output.js';
import type { Session } from '../session/session.js';
import { resolveUserId } from '../account/users-admin.js';

/**
 * PUT /admin/users/{id}/loadtest-exemption for the account named by email or id.
 * @throws CliError NOT_FOUND, FORBIDDEN, INVALID_REQUEST
 */
export async function grantExemption(session: Session, ref: string, durationMs: number): Promise<ApiResponse<LoadtestExemption>> {
  const id = await resolveUserId(session, ref);
  return session.api.request<LoadtestExemption>({
    method: 'PUT',
    path: `${API_PREFIX}/admin/users/${encodeURIComponent(id)}/loadtest-exemption`,
    body: { duration_s: Math.round(durationMs / 1000) },
  });
}

/**
 * DELETE /admin/users/{id}/loadtest-exemption.
 * @throws CliError NOT_FOUND, FORBIDDEN
 */
export async function revokeExemption(session: Session, ref: string): Promise<void> {
  const id = await resolveUserId(session, ref);
  await session.api.request({ method: 'DELETE', path: `${API_PREFIX}/admin/users/${encodeURIComponent(id)}/loadtest-exemption` });
}

/** GET /admin/loadtest-exemptions. @throws CliError FORBIDDEN for a non-admin */
export async function listExemptions(session: Session): Promise<ApiResponse<LoadtestExemption[]>> {
  return session.api.request<LoadtestExemption[]>({ path: `${API_PREFIX}/admin/loadtest-exemptions` });
}

/** Column order of exemption rows (also the TSV column order). */
export const EXEMPTION_HEADERS = ['EMAIL', 'TIER', 'EXPIRES', 'LEFT', 'GRANTED BY'] as const;

/** Exemptions as a table. */
export function exemptionsTable(rows: LoadtestExemption[]): TableData {
  return {
    headers: [...EXEMPTION_HEADERS],
    rows: rows.map((r) => [r.email, r.tier, r.expires_at, formatDuration(r.remaining_s * 1000), r.granted_by]),
  };
}

/** The one-line confirmation of a grant. */
export function grantLine(e: LoadtestExemption): string {
  return `${e.email} is exempt from rate limits for load tests until ${e.expires_at} (${formatDuration(e.remaining_s * 1000)}); revoke with \`stockscreen admin users loadtest-revoke ${e.email}\``;
}
