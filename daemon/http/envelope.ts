/**
 * The spec's response envelope ("Response envelope"): success
 * `{status:"success", data, meta:{timestamp, request_id}}` and error
 * `{status:"error", error:{code, message, details}, meta}`.
 */
import type { Request, Response } from 'express';
import type { EnvelopeMeta as Meta, ErrorEnvelope } from '../contract/envelope.js';
import type { ErrorCode, ErrorDetails } from '../errors.js';

/** Envelope `meta`, with room for paging fields (daemon/contract/envelope.ts). */
export type { EnvelopeMeta as Meta } from '../contract/envelope.js';

/** Build the `meta` object for a request. */
export function meta(req: Request, extra: Record<string, unknown> = {}): Meta {
  return { timestamp: new Date().toISOString(), request_id: req.id, ...extra };
}

/** Options for a success response. */
export interface SuccessOptions {
  status?: number;
  /** Extra `meta` fields (paging). */
  meta?: Record<string, unknown>;
  /** Fields repeated at the top level of the body, for clients of the spec's bare shapes. */
  top?: Record<string, unknown>;
}

/** Send a success envelope. Routes name the wire type (`sendSuccess<StockPrice>(…)`, daemon/contract) so a drift fails to compile. */
export function sendSuccess<T = unknown>(req: Request, res: Response, data: T, options: SuccessOptions = {}): void {
  res.status(options.status ?? 200).json({ ...options.top, status: 'success', data, meta: meta(req, options.meta) });
}

/** Build an error envelope body. */
export function errorBody(req: Request, code: ErrorCode, message: string, details: ErrorDetails = {}): ErrorEnvelope {
  return { status: 'error', error: { code, message, details }, meta: meta(req) };
}
