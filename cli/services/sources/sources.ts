/** Data sources over the admin API: status list, a test of one source's key, a backfill as a job. */
import type { JobView } from '../../../daemon/contract/jobs.js';
import type { SourceStatus, SourceSyncInput, SourceTestResult } from '../../../daemon/contract/sources.js';
import type { TableData } from '../output/output.js';
import type { Session } from '../session/session.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';

/** GET /admin/sources. @throws CliError FORBIDDEN for a non-admin */
export function listSources(session: Session): Promise<ApiResponse<SourceStatus[]>> {
  return session.api.request<SourceStatus[]>({ path: `${API_PREFIX}/admin/sources` });
}

/** POST /admin/sources/{name}/test. @throws CliError NOT_FOUND for an unknown source */
export function testSource(session: Session, name: string): Promise<ApiResponse<SourceTestResult>> {
  return session.api.request<SourceTestResult>({ method: 'POST', path: `${API_PREFIX}/admin/sources/${encodeURIComponent(name)}/test` });
}

/** POST /admin/sources/{name}/sync. @throws CliError INVALID_REQUEST for a bad range, CONFLICT when not configured */
export function syncSource(session: Session, name: string, body: SourceSyncInput): Promise<ApiResponse<JobView>> {
  return session.api.request<JobView>({ method: 'POST', path: `${API_PREFIX}/admin/sources/${encodeURIComponent(name)}/sync`, body });
}

/** The status table: one row per source. */
export function sourcesTable(sources: readonly SourceStatus[]): TableData {
  return {
    headers: ['NAME', 'KIND', 'CONFIGURED', 'LATEST', 'LAST_RUN', 'CALLS_TODAY', 'STALE', 'LAST_ERROR'],
    rows: sources.map((s) => [
      s.name, s.kind, s.configured ? 'yes' : 'no', s.last_success_date ?? '-', s.last_success_at ?? '-', String(s.calls_today),
      s.stale ? `yes: ${s.stale_reason ?? ''}` : 'no', s.last_error ? `${s.last_error.code} ${s.last_error.message}` : '-',
    ]),
  };
}

/** The test table: one row per service. */
export function checksTable(result: SourceTestResult): TableData {
  return {
    headers: ['SERVICE', 'OK', 'CODE', 'MESSAGE', 'APPLY_FOR'],
    rows: result.checks.map((c) => [c.service, c.ok ? 'yes' : 'no', c.code ?? '-', c.message, c.apply_for ?? '-']),
  };
}
