/** The response envelope every REST endpoint answers with. */
import type { ErrorCode, ErrorDetails } from '../errors.js';

/** Envelope `meta`: always the time and request id, plus paging or other extra fields. */
export interface EnvelopeMeta {
  timestamp: string;
  request_id: string;
  [extra: string]: unknown;
}

/** The success envelope around `data`. */
export interface Envelope<T> {
  status: 'success';
  data: T;
  meta: EnvelopeMeta;
}

/** The error envelope: a stable code, a message and field-level details. */
export interface ErrorEnvelope {
  status: 'error';
  error: { code: ErrorCode; message: string; details: ErrorDetails };
  meta: EnvelopeMeta;
}

/** Paging fields in `meta` of list endpoints. */
export interface PageMeta {
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
}
