/**
 * POST /admin/uploads: a market-data file streamed to the daemon as
 * `application/octet-stream`, written to its upload directory as it arrives (never
 * buffered whole), sized and hashed on the way. A load job then names it by id.
 */
import { UploadInfo, UploadQuery } from '../../contract/jobs.js';
import { AppError, isAppError } from '../../errors.js';
import { saveUpload } from '../../jobs/uploads.js';
import type { ApiBuilder } from '../api.js';
import { sendSuccess } from '../envelope.js';

/** Collaborators of the upload route. */
export interface AdminUploadDeps {
  /** Where uploads are kept. */
  dir: string;
  /** upload_max_bytes. */
  maxBytes: number;
}

/** Register POST /admin/uploads. */
export function registerAdminUploadRoute(api: ApiBuilder, deps: AdminUploadDeps): void {
  api.route(
    {
      method: 'post', path: '/admin/uploads', summary: 'Upload one market-data file (streamed, application/octet-stream) for a load job', tags: ['admin', 'jobs'], access: 'admin',
      query: UploadQuery, response: UploadInfo, status: 201, errors: [413, 415],
      description: 'The body is the file\'s bytes. Answers {id, name, size, sha256}; load it with POST /admin/jobs {"type":"load-files","paths":[{"upload":"<id>"}]}. Larger than upload_max_bytes: 413.',
    },
    async (req, res) => {
      if (!req.is('application/octet-stream')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the file as application/octet-stream', { 'content-type': 'must be application/octet-stream' });
      const declared = Number(req.headers['content-length'] ?? 0);
      try {
        if (declared > deps.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `upload larger than upload_max_bytes (${deps.maxBytes} bytes)`, { limit: deps.maxBytes });
        const { name } = req.valid.query;
        const info = await saveUpload(deps.dir, name, req, deps.maxBytes);
        sendSuccess(req, res, info, { status: 201 });
      } catch (err) {
        // The rest of a refused body is not read: the connection closes after the answer.
        if (isAppError(err) && err.code === 'PAYLOAD_TOO_LARGE') res.setHeader('Connection', 'close');
        throw err;
      }
    },
  );
}
