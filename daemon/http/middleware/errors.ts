/**
 * The HTTP edge of the error table: AppError → its status and envelope; body-parser
 * and express errors → the matching stable code; an unreachable database or Redis → 503
 * with Retry-After; anything else → a masked 500
 * logged with the request id (no stack or internal message reaches the client).
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, ERROR_CODES, isAppError, type ErrorCode } from '../../errors.js';
import { isRedisUnavailable } from '../../infra/redis.js';
import { isStoreUnavailable } from '../../store/db.js';
import { errorBody } from '../envelope.js';

/** Seconds a client is told to wait after a 503 for an unreachable dependency. */
const RETRY_AFTER_S = 5;

/** 404 NOT_FOUND for any route nothing else answered. */
export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    res.status(404).json(errorBody(req, 'NOT_FOUND', `No route for ${req.method} ${req.path}`, { method: req.method, path: req.path }));
  };
}

interface HttpishError {
  type?: string;
  /** body-parser: the raw text that failed to parse. */
  body?: unknown;
  status?: number;
  statusCode?: number;
  expose?: boolean;
  limit?: number;
}

/** Translate errors raised by express and body-parser into AppErrors. */
function fromExpress(err: HttpishError & Error): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed': {
      // The strict parser refuses any top-level value but an object or array: say so plainly.
      const first = String(err.body ?? '').trimStart()[0];
      if (first !== undefined && first !== '{' && first !== '[') {
        return new AppError('INVALID_REQUEST', 'Request body must be a JSON object', { body: 'must be a JSON object' });
      }
      return new AppError('INVALID_REQUEST', 'Malformed JSON in request body', { body: err.message });
    }
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body too large', { limit_bytes: err.limit });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', err.message);
    default:
      break;
  }
  const status = err.status ?? err.statusCode;
  if (status && status >= 400 && status < 500 && err.expose !== false) {
    const code = (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c] === status) ?? 'INVALID_REQUEST';
    return new AppError(code, err.message);
  }
  return undefined;
}

/** Final error middleware. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = isAppError(err) ? err : fromExpress(err as HttpishError & Error);
    if (res.headersSent) {
      logger.error({ err, request_id: req.id }, 'error after response started');
      res.destroy();
      return;
    }
    if (appError) {
      if (appError.code === 'UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'Bearer');
      res.status(appError.status).json(errorBody(req, appError.code, appError.message, appError.details));
      return;
    }
    // Before the database check: ioredis's "Connection is closed." would pass for a database error.
    if (isRedisUnavailable(err)) {
      logger.warn({ err: (err as Error).message, request_id: req.id, method: req.method, path: req.path }, 'redis unavailable');
      res.setHeader('Retry-After', String(RETRY_AFTER_S));
      res.status(503).json(errorBody(req, 'SERVICE_UNAVAILABLE', 'Redis unavailable; try again shortly', { retry_after_s: RETRY_AFTER_S }));
      return;
    }
    if (isStoreUnavailable(err)) {
      // Transient: the database is down, restarting or saturated. Say so, and when to retry.
      logger.warn({ err: (err as Error).message, request_id: req.id, method: req.method, path: req.path }, 'database unavailable');
      res.setHeader('Retry-After', String(RETRY_AFTER_S));
      res.status(503).json(errorBody(req, 'SERVICE_UNAVAILABLE', 'Database unavailable; try again shortly', { retry_after_s: RETRY_AFTER_S }));
      return;
    }
    logger.error({ err, request_id: req.id, method: req.method, path: req.path }, 'unhandled error');
    res.status(500).json(errorBody(req, 'INTERNAL_ERROR', 'Internal server error', { request_id: req.id }));
  };
}
