/**
 * Screening over the API: POST /screen, predefined templates, the field catalogue, and
 * CSV answers (Accept: text/csv: every match, not one page) streamed straight to stdout.
 */
import type { ScreenField, ScreenItem, ScreenTemplate } from '../../../daemon/contract/screening.js';
import type { CliOutput } from '../../io.js';
import { API_PREFIX, type ApiResponse } from '../transport/api-client.js';
import { usageError } from '../session/errors.js';
import { streamRequest } from '../transport/raw-request.js';
import type { Session } from '../session/session.js';

/** Where a screen runs: an ad-hoc body, a template (with overrides) or a saved preset. */
export type ScreenTarget =
  | { kind: 'screen'; body: Record<string, unknown> }
  | { kind: 'template'; id: string; body: Record<string, unknown> }
  | { kind: 'preset'; id: string; body?: Record<string, unknown> };

/** A template id. @throws CliError USAGE for a malformed id */
export function checkTemplateId(id: string): string {
  if (!/^[a-z0-9-]{1,64}$/.test(id)) throw usageError(`--template: "${id}" is not a template id`, 'list them with `stockscreen screen templates`');
  return id;
}

/** `target` screening the market as known on `asOf`, unchanged without a date. */
export function withAsOf(target: ScreenTarget, asOf: string | undefined): ScreenTarget {
  return asOf === undefined ? target : { ...target, body: { ...target.body, as_of: asOf } } as ScreenTarget;
}

function targetPath(target: ScreenTarget): string {
  if (target.kind === 'screen') return `${API_PREFIX}/screen`;
  if (target.kind === 'template') return `${API_PREFIX}/screen/templates/${checkTemplateId(target.id)}`;
  return `${API_PREFIX}/screen/presets/${encodeURIComponent(target.id)}/run`;
}

/**
 * Run a screen and return one page (the body keeps the spec's top-level query_time_ms).
 * @throws CliError INVALID_REQUEST with field details (unknown fields come with suggestions), NOT_FOUND for a template or preset
 */
export async function runScreen(session: Session, target: ScreenTarget): Promise<ApiResponse<ScreenItem[]>> {
  const body = target.body;
  return session.api.request<ScreenItem[]>({ method: 'POST', path: targetPath(target), body });
}

/** What a CSV screen wrote. */
export interface CsvOutcome {
  /** Matches (X-Total-Count), when the server said. */
  total: number | null;
  bytes: number;
}

/**
 * Run a screen asking for CSV and copy the answer to `out` as it arrives.
 * @throws CliError USAGE for a preset (the run endpoint answers JSON only; run its query instead), the API's errors
 */
export async function screenCsv(session: Session, target: ScreenTarget, out: CliOutput): Promise<CsvOutcome> {
  if (target.kind === 'preset') throw usageError('CSV is available for screens and templates; run the preset\'s query instead');
  const res = await streamRequest(session, { method: 'POST', path: targetPath(target), body: target.body, accept: 'text/csv' });
  const decoder = new TextDecoder();
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += chunk.length;
    out.write(decoder.decode(chunk, { stream: true }));
  }
  const tail = decoder.decode();
  if (tail) out.write(tail);
  const header = res.headers['x-total-count'];
  const total = typeof header === 'string' && /^\d+$/.test(header) ? Number(header) : null;
  return { total, bytes };
}

/** GET /screen/fields: every screenable indicator. */
export async function listFields(session: Session): Promise<ApiResponse<ScreenField[]>> {
  return session.api.request<ScreenField[]>({ path: `${API_PREFIX}/screen/fields` });
}

/** Units by field id from GET /screen/fields; empty when the catalogue cannot be read (numbers then show plain). */
export async function fieldUnits(session: Session): Promise<Map<string, string>> {
  try {
    return new Map((await listFields(session)).data.map((f) => [f.id, f.unit]));
  } catch {
    return new Map();
  }
}

/** GET /screen/templates. */
export async function listTemplates(session: Session): Promise<ApiResponse<ScreenTemplate[]>> {
  return session.api.request<ScreenTemplate[]>({ path: `${API_PREFIX}/screen/templates` });
}
