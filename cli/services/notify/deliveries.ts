/**
 * The delivery log and digest schedules over the REST API, and how they are shown: deliveries
 * with their last attempt (status code, error), schedules with their last and next run.
 */
import type { Delivery, DeliveryListQuery, DeliveryStatus, NewSchedule, Schedule } from '../../../daemon/contract/notify.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { isFullId, matchIdPrefix, shortId } from '../output/id-prefix.js';
import type { CellInput, RecordData, TableData } from '../output/output.js';
import type { Session } from '../session/session.js';

/** GET /deliveries. */
export function listDeliveries(session: Session, q: Partial<DeliveryListQuery>): Promise<ApiResponse<Delivery[]>> {
  return session.api.request<Delivery[]>({ path: `${API_PREFIX}/deliveries`, query: { ...q } });
}

/** POST /deliveries/{id}/redeliver. @throws CliError NOT_FOUND, CONFLICT (still under way) */
export function redeliver(session: Session, id: string): Promise<ApiResponse<Delivery>> {
  return session.api.request<Delivery>({ method: 'POST', path: `${API_PREFIX}/deliveries/${encodeURIComponent(id)}/redeliver` });
}

/** The delivery named by its id or a unique prefix among the latest 200. @throws CliError NOT_FOUND, USAGE */
export async function resolveDeliveryId(session: Session, ref: string): Promise<string> {
  if (isFullId(ref)) return ref;
  return matchIdPrefix(ref, (await listDeliveries(session, { limit: 200 })).data.map((d) => d.id), 'delivery');
}

/** Column order of delivery rows. */
export const DELIVERY_HEADERS = ['ID', 'CREATED', 'KIND', 'CHANNEL', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST CODE', 'LAST ERROR', 'NEXT ATTEMPT'] as const;

const TONES: Partial<Record<DeliveryStatus, 'good' | 'bad' | 'muted'>> = { delivered: 'good', dead: 'bad', retrying: 'bad', grouping: 'muted' };

/** One delivery's cells. */
export function deliveryCells(d: Delivery, tty: boolean): CellInput[] {
  const last = d.attempts.at(-1);
  return [
    tty ? shortId(d.id) : d.id, d.created_at, d.kind, tty ? shortId(d.channel_id) : d.channel_id, d.channel_type,
    { text: d.status, tone: TONES[d.status] }, d.attempts.length, last?.status_code ?? null, d.last_error, d.next_attempt_at,
  ];
}

/** Deliveries as a table. */
export function deliveriesTable(list: Delivery[], tty: boolean): TableData {
  return { headers: [...DELIVERY_HEADERS], rows: list.map((d) => deliveryCells(d, tty)) };
}

/** One delivery as label/value pairs, its attempts listed. */
export function deliveryRecord(d: Delivery, tty: boolean): RecordData {
  const cells = deliveryCells(d, tty);
  const fields = DELIVERY_HEADERS.map((h, i) => [h.toLowerCase(), cells[i]] as [string, CellInput]);
  d.attempts.forEach((a) => fields.push([`attempt ${a.n}`, `${a.at} ${a.status_code ?? '-'} ${a.error ?? 'ok'} (${a.duration_ms} ms)`]));
  return { fields };
}

/** POST /schedules. @throws CliError INVALID_REQUEST, FORBIDDEN */
export function createSchedule(session: Session, body: NewSchedule): Promise<ApiResponse<Schedule>> {
  return session.api.request<Schedule>({ method: 'POST', path: `${API_PREFIX}/schedules`, body });
}

/** GET /schedules. */
export function listSchedules(session: Session): Promise<ApiResponse<Schedule[]>> {
  return session.api.request<Schedule[]>({ path: `${API_PREFIX}/schedules` });
}

/** DELETE /schedules/{id} for an id or unique prefix; returns the id. @throws CliError NOT_FOUND */
export async function deleteSchedule(session: Session, ref: string): Promise<string> {
  const id = isFullId(ref) ? ref : matchIdPrefix(ref, (await listSchedules(session)).data.map((s) => s.id), 'schedule');
  await session.api.request({ method: 'DELETE', path: `${API_PREFIX}/schedules/${encodeURIComponent(id)}` });
  return id;
}

/** Column order of schedule rows. */
export const SCHEDULE_HEADERS = ['ID', 'PRESET', 'AT (KST)', 'CHANNELS', 'LAST RUN', 'MEMBERS', 'ENTERED', 'LEFT', 'NEXT RUN'] as const;

/** One schedule's cells. */
export function scheduleCells(s: Schedule, tty: boolean): CellInput[] {
  return [
    tty ? shortId(s.id) : s.id, s.preset_name, s.at, tty ? s.channels.map(shortId).join(',') : s.channels.join(','),
    s.last_run?.trade_date ?? null, s.last_run?.members ?? null, s.last_run?.entered ?? null, s.last_run?.left ?? null, s.next_run_at,
  ];
}

/** Schedules as a table. */
export function schedulesTable(list: Schedule[], tty: boolean): TableData {
  return { headers: [...SCHEDULE_HEADERS], rows: list.map((s) => scheduleCells(s, tty)) };
}

/** One schedule as label/value pairs. */
export function scheduleRecord(s: Schedule, tty: boolean): RecordData {
  const cells = scheduleCells(s, tty);
  return { fields: SCHEDULE_HEADERS.map((h, i) => [h.toLowerCase(), cells[i]] as [string, CellInput]) };
}
