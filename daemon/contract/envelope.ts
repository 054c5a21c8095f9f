/** The response envelope every REST endpoint answers with. */
import { z } from 'zod';
import type { ErrorCode, ErrorDetails } from '../errors.js';

/** Largest page of a paged list (`limit`, `per_page`). */
export const MAX_PAGE_LIMIT = 500;

/** Paging query of a list (page 1-based, default 50 a page). */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
});

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
