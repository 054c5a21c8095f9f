/**
 * Uploads for `stockscreen load FILE|FOLDER`: each planned file is streamed to
 * the daemon (POST /admin/uploads, application/octet-stream, never read whole here) under
 * the name the operator sees, relative to the folder they named (so the daemon detects
 * formats and trade dates from the same names), and the load job names the uploads.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, relative, sep } from 'node:path';
import type { JobUploadSpec, UploadInfo } from '../../../daemon/contract/jobs.js';
import { API_PREFIX } from '../transport/api-client.js';
import type { LoadFlags, PlannedPath } from './load-plan.js';
import type { Session } from '../session/session.js';

/** The upload name of `file`: its path under the named folder's parent (`krx/index/kospi/2025.csv`), or its base name. */
export function uploadName(planned: PlannedPath, file: string): string {
  const name = planned.kind === 'folder' ? relative(dirname(planned.path), file) : basename(file);
  return name.split(sep).join('/');
}

/**
 * Stream one file to the daemon.
 * @throws CliError from the daemon (PAYLOAD_TOO_LARGE past its upload_max_bytes, FORBIDDEN for a non-admin, …)
 */
export async function uploadFile(session: Session, path: string, name: string): Promise<UploadInfo> {
  const { size } = await stat(path);
  const res = await session.api.request<UploadInfo>({
    method: 'POST', path: `${API_PREFIX}/admin/uploads`, query: { name }, stream: { open: () => createReadStream(path), length: size },
  });
  return res.data;
}

/**
 * Upload every recognised file of a plan in plan order and return the job's inputs (the
 * format detected here, and the per-file flags of a single file). `onFile` hears each upload.
 */
export async function uploadPlan(session: Session, plan: readonly PlannedPath[], flags: LoadFlags, onFile: (done: number, total: number, info: UploadInfo) => void): Promise<JobUploadSpec[]> {
  const files = plan.flatMap((p) => p.files.filter((f) => f.format !== null).map((f) => ({ planned: p, file: f })));
  const specs: JobUploadSpec[] = [];
  for (const [i, { planned, file }] of files.entries()) {
    const info = await uploadFile(session, file.path, uploadName(planned, file.path));
    onFile(i + 1, files.length, info);
    const single = planned.kind === 'file' ? { ...(flags.date ? { date: flags.date } : {}), ...(flags.code ? { code: flags.code } : {}) } : {};
    specs.push({ upload: info.id, format: file.format!, ...single });
  }
  return specs;
}
