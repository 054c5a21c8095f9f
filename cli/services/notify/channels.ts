/**
 * Notification channels over the REST API: list, add, test, remove; a channel named by its id,
 * a unique id prefix or its name; and how channels are shown (table rows, TSV rows, records).
 */
import type { Channel, CreatedChannel, Delivery, NewChannel } from '../../../daemon/contract/notify.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { isFullId, matchIdPrefix, MIN_PREFIX, shortId } from '../output/id-prefix.js';
import type { CellInput, RecordData, TableData } from '../output/output.js';
import { CliError } from '../session/errors.js';
import type { Session } from '../session/session.js';

const path = (id?: string, tail = '') => `${API_PREFIX}/channels${id === undefined ? '' : `/${encodeURIComponent(id)}`}${tail}`;

/** GET /channels. */
export function listChannels(session: Session): Promise<ApiResponse<Channel[]>> {
  return session.api.request<Channel[]>({ path: path() });
}

/** POST /channels. @throws CliError INVALID_REQUEST (unsafe URL, no SMTP server…), FORBIDDEN (tier cap) */
export function createChannel(session: Session, body: NewChannel): Promise<ApiResponse<CreatedChannel>> {
  return session.api.request<CreatedChannel>({ method: 'POST', path: path(), body });
}

/** POST /channels/{id}/test: one attempt now; answers the delivery. @throws CliError NOT_FOUND */
export function testChannel(session: Session, id: string): Promise<ApiResponse<Delivery>> {
  return session.api.request<Delivery>({ method: 'POST', path: path(id, '/test') });
}

/** DELETE /channels/{id}. @throws CliError NOT_FOUND */
export async function deleteChannel(session: Session, id: string): Promise<void> {
  await session.api.request({ method: 'DELETE', path: path(id) });
}

/**
 * The id of the caller's channel named by its id, a unique prefix (≥ 4 characters) or its name.
 * @throws CliError NOT_FOUND, or USAGE for an ambiguous reference
 */
export async function resolveChannelId(session: Session, ref: string, known?: Channel[]): Promise<string> {
  if (isFullId(ref)) return ref;
  const channels = known ?? (await listChannels(session)).data;
  const byName = channels.filter((c) => c.name === ref);
  if (byName.length === 1) return byName[0]!.id;
  if (byName.length > 1) throw new CliError({ code: 'USAGE', message: `several channels are named "${ref}"`, hint: 'name it by id (`stockscreen channels list`)' });
  const missing = new CliError({ code: 'NOT_FOUND', message: `no channel named "${ref}"`, hint: 'list yours with `stockscreen channels list`' });
  if (ref.trim().length < MIN_PREFIX) throw missing;
  try {
    return matchIdPrefix(ref, channels.map((c) => c.id), 'channel');
  } catch (err) {
    if (err instanceof CliError && err.code === 'NOT_FOUND') throw missing;
    throw err;
  }
}

/** Resolve several references with one listing. */
export async function resolveChannelIds(session: Session, refs: readonly string[]): Promise<string[]> {
  if (refs.every(isFullId)) return [...refs];
  const known = (await listChannels(session)).data;
  const ids: string[] = [];
  for (const ref of refs) ids.push(await resolveChannelId(session, ref, known));
  return ids;
}

/** Column order of channel rows (also the TSV column order). */
export const CHANNEL_HEADERS = ['ID', 'TYPE', 'NAME', 'TARGET', 'ENABLED', 'DISABLED REASON', 'CREATED'] as const;

/** One channel's cells. */
export function channelCells(c: Channel, tty: boolean): CellInput[] {
  return [tty ? shortId(c.id) : c.id, c.type, c.name, c.target, c.enabled ? { text: 'yes', tone: 'good' } : { text: 'no', tone: 'bad' }, c.disabled_reason, c.created_at];
}

/** Channels as a table. */
export function channelsTable(channels: Channel[], tty: boolean): TableData {
  return { headers: [...CHANNEL_HEADERS], rows: channels.map((c) => channelCells(c, tty)) };
}

/** One channel as label/value pairs (a new webhook's secret last). */
export function channelRecord(c: CreatedChannel, tty: boolean): RecordData {
  const cells = channelCells(c, tty);
  const fields = CHANNEL_HEADERS.map((h, i) => [h.toLowerCase(), cells[i]] as [string, CellInput]);
  if (c.secret) fields.push(['secret', c.secret]);
  return { fields };
}
