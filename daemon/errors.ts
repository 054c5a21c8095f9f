/**
 * The one error-code table of the service and the AppError type.
 * Domain code throws AppError; only the edges (HTTP error middleware, WebSocket
 * server, job processors, CLI main) translate it into a wire format.
 */

/** Stable error codes and the HTTP status each maps to. */
export const ERROR_CODES = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  /** Request line or headers over Node's limit (16 KB); answered by the HTTP server itself (http/client-errors.ts). */
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  /** A screen stopped at its CPU deadline (screen_limits.deadline_ms): too expensive to finish. */
  QUERY_TIMEOUT: 503,
} as const;

/** One of the stable REST error codes. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** WebSocket error codes carried in an `error` message. */
export const WS_ERROR_CODES = {
  INVALID_MESSAGE: 'INVALID_MESSAGE',
  INVALID_TOKEN: 'INVALID_TOKEN',
  SUBSCRIPTION_FAILED: 'SUBSCRIPTION_FAILED',
  RATE_LIMIT_EXCEEDED: 'RATE_LIMIT_EXCEEDED',
  SESSION_RESTORATION_FAILED: 'SESSION_RESTORATION_FAILED',
  TOKEN_REFRESH_ERROR: 'TOKEN_REFRESH_ERROR',
} as const;

/** Field-level or contextual information attached to an error. */
export type ErrorDetails = Record<string, unknown>;

/** An expected failure with a stable code, a human message and optional details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  /** HTTP status for this error's code. */
  get status(): number {
    return ERROR_CODES[this.code];
  }
}

/** Shorthand for a 400 INVALID_REQUEST with field-level details (`{ "<field path>": "<problem>" }`). */
export function invalidRequest(message: string, details: ErrorDetails = {}): AppError {
  return new AppError('INVALID_REQUEST', message, details);
}

/** Shorthand for a 404 NOT_FOUND naming the missing resource. */
export function notFound(what: string, details: ErrorDetails = {}): AppError {
  return new AppError('NOT_FOUND', `${what} not found`, details);
}

/** True when `value` is an AppError (also across module copies). */
export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError || (value instanceof Error && value.name === 'AppError' && 'code' in value);
}
