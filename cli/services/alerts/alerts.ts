/**
 * Price alerts over the REST API: list, create, update, delete and the firing
 * history, and how alerts and firings are shown (table rows, TSV rows, records).
 */
import { MAX_PAGE_LIMIT } from '../../../daemon/contract/envelope.js';
import type { Alert, AlertFiring, AlertListQuery, AlertPatch, AlertType, NewAlert } from '../../../daemon/contract/alerts.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { num, signed } from '../output/market-format.js';
import { formatDuration } from '../output/duration.js';
import { isFullId, matchIdPrefix, shortId } from '../output/id-prefix.js';
import type { CellInput, RecordData, TableData } from '../output/output.js';
import type { Session } from '../session/session.js';

const path = (id?: string) => `${API_PREFIX}/alerts${id === undefined ? '' : `/${encodeURIComponent(id)}`}`;

/** GET /alerts (your alerts, filtered, one page). */
export function listAlerts(session: Session, q: Partial<AlertListQuery>): Promise<ApiResponse<Alert[]>> {
  const active = q.active === undefined ? undefined : String(q.active);
  return session.api.request<Alert[]>({ path: path(), query: { code: q.code, active, type: q.type, page: q.page, limit: q.limit } });
}

/**
 * POST /alerts.
 * @throws CliError INVALID_REQUEST (bad code, unknown stock, bad threshold) or FORBIDDEN (tier cap)
 */
export function createAlert(session: Session, body: NewAlert): Promise<ApiResponse<Alert>> {
  return session.api.request<Alert>({ method: 'POST', path: path(), body });
}

/**
 * PUT /alerts/{id}.
 * @throws CliError NOT_FOUND, INVALID_REQUEST, FORBIDDEN (re-activating over the tier cap)
 */
export function updateAlert(session: Session, id: string, patch: AlertPatch): Promise<ApiResponse<Alert>> {
  return session.api.request<Alert>({ method: 'PUT', path: path(id), body: patch });
}

/**
 * DELETE /alerts/{id} (204; the firing history is kept).
 * @throws CliError NOT_FOUND
 */
export async function deleteAlert(session: Session, id: string): Promise<void> {
  await session.api.request({ method: 'DELETE', path: path(id) });
}

/**
 * GET /alerts/{id}/events, or GET /alerts/events for all alerts; newest first.
 * @throws CliError NOT_FOUND for an unknown alert id
 */
export function alertHistory(session: Session, id: string | undefined, q: { code?: string; page?: number; limit?: number }): Promise<ApiResponse<AlertFiring[]>> {
  const where = id === undefined ? `${path()}/events` : `${path(id)}/events`;
  return session.api.request<AlertFiring[]>({ path: where, query: { code: id === undefined ? q.code : undefined, page: q.page, limit: q.limit } });
}

/** Largest page of GET /alerts. */
const MAX_PAGE = MAX_PAGE_LIMIT;

/**
 * The id of the caller's alert named by its id or a unique prefix (looked up page by page).
 * @throws CliError NOT_FOUND, or USAGE for a short or ambiguous prefix
 */
export async function resolveAlertId(session: Session, ref: string): Promise<string> {
  if (isFullId(ref)) return ref;
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = await listAlerts(session, { page, limit: MAX_PAGE });
    ids.push(...res.data.map((a) => a.id));
    if (res.data.length < MAX_PAGE) break;
  }
  return matchIdPrefix(ref, ids, 'alert');
}

/** A threshold as the type means it: a price, a signed percent, or a multiple of the average volume. */
export function formatThreshold(type: AlertType, threshold: number | null): string {
  if (threshold === null) return '';
  if (type === 'change_percent_above' || type === 'change_percent_below') return `${signed(threshold)}%`;
  if (type === 'volume_above') return `${num(threshold)}× avg volume`;
  return num(threshold);
}

/** Column order of alert rows (also the TSV column order). */
export const ALERT_HEADERS = ['ID', 'CODE', 'NAME', 'TYPE', 'THRESHOLD', 'ACTIVE', 'RECURRING', 'COOLDOWN', 'FIRED', 'LAST FIRED', 'NOTE', 'PRESET', 'CHANNELS', 'MEMBERSHIP', 'DWELL'] as const;

/** One alert's cells; `tty` picks readable over raw values (TSV keeps raw numbers). */
export function alertCells(a: Alert, tty: boolean): CellInput[] {
  return [
    tty ? shortId(a.id) : a.id, a.code, a.name, a.alert_type,
    tty ? formatThreshold(a.alert_type, a.threshold) : a.threshold,
    a.active ? { text: 'yes', tone: 'good' } : { text: 'no', tone: 'muted' },
    a.recurring ? 'yes' : 'no',
    tty ? (a.cooldown_s ? formatDuration(a.cooldown_s * 1000) : '') : a.cooldown_s,
    a.fire_count, a.last_fired_at, a.note,
    // Last, so that scripts reading the columns of price alerts by position keep working.
    a.preset_id && tty ? shortId(a.preset_id) : a.preset_id,
    (a.channels ?? []).map((c) => (tty ? shortId(c) : c)).join(','),
    a.membership,
    tty ? (a.dwell_s === null ? null : a.dwell_s ? formatDuration(a.dwell_s * 1000) : 'none') : a.dwell_s,
  ];
}

/** Alerts as a table. */
export function alertsTable(alerts: Alert[], tty: boolean): TableData {
  return { headers: [...ALERT_HEADERS], rows: alerts.map((a) => alertCells(a, tty)) };
}

/** One alert as label/value pairs. */
export function alertRecord(a: Alert, tty: boolean): RecordData {
  const cells = alertCells(a, tty);
  return { fields: ALERT_HEADERS.map((h, i) => [h.toLowerCase(), cells[i]] as [string, CellInput]) };
}

/** Column order of firing rows. */
export const FIRING_HEADERS = ['FIRED AT', 'ALERT', 'CODE', 'TYPE', 'THRESHOLD', 'PRICE', 'MESSAGE'] as const;

/** Firings as a table (newest first, as the API sends them). */
export function firingsTable(firings: AlertFiring[], tty: boolean): TableData {
  return {
    headers: [...FIRING_HEADERS],
    rows: firings.map((f) => [f.fired_at, tty ? shortId(f.alert_id) : f.alert_id, f.code, f.alert_type, tty ? formatThreshold(f.alert_type, f.threshold) : f.threshold, tty ? num(f.price) : f.price, f.message]),
  };
}
