/**
 * CLI errors: one type carrying the server's error code, message, request id and HTTP
 * status (or a local code), the exit code it maps to, and a hint for the user.
 */
import { ERROR_CODES, type ErrorCode } from '../../../daemon/contract/errors.js';
import { formatDuration } from '../output/duration.js';

/** Process exit codes: 0 ok, 1 error, 2 cancelled, 4 authentication required (scripts branch on them). */
export const EXIT = {
  OK: 0,
  ERROR: 1,
  /** Cancelled by the user, or a usage error. */
  USAGE: 2,
  AUTH_REQUIRED: 4,
} as const;

/** Codes for failures that never reached the server. */
export const LOCAL_CODES = {
  USAGE: 'USAGE',
  CANCELLED: 'CANCELLED',
  NOT_LOGGED_IN: 'NOT_LOGGED_IN',
  BAD_RESPONSE: 'BAD_RESPONSE',
  DAEMON: 'DAEMON',
  CONFIG: 'CONFIG',
} as const;

/** Hints for the common cases (spec'd by the issue: unreachable daemon, 401). */
export const HINTS = {
  start: 'start it with `stockscreen daemon start` or `npm run up`',
  login: 'run `stockscreen login`',
} as const;

/** What a CliError is built from. */
export interface CliErrorInit {
  /** Server error code (UNAUTHORIZED, …), a system code (ECONNREFUSED) or one of LOCAL_CODES. */
  code: string;
  message: string;
  status?: number;
  requestId?: string;
  details?: Record<string, unknown>;
  hint?: string;
  /** Extra lines printed (indented) under the error line, e.g. the tail of a log. */
  context?: string[];
  /** Overrides the exit code derived from `code`. */
  exitCode?: number;
}

/** An expected CLI failure; `main` prints it and returns its exit code. */
export class CliError extends Error {
  readonly code: string;
  readonly status?: number;
  readonly requestId?: string;
  readonly details: Record<string, unknown>;
  readonly hint?: string;
  readonly context: string[];
  readonly exitCode: number;

  constructor(init: CliErrorInit) {
    super(init.message);
    this.name = 'CliError';
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details ?? {};
    this.hint = init.hint ?? defaultHint(init.code);
    this.context = init.context ?? [];
    this.exitCode = init.exitCode ?? exitCodeFor(init.code);
  }
}

/** Exit code for an error code: 4 when authentication is required, 2 for usage/cancel, else 1. */
export function exitCodeFor(code: string): number {
  if (code === 'UNAUTHORIZED' || code === LOCAL_CODES.NOT_LOGGED_IN) return EXIT.AUTH_REQUIRED;
  if (code === LOCAL_CODES.USAGE || code === LOCAL_CODES.CANCELLED) return EXIT.USAGE;
  return EXIT.ERROR;
}

function defaultHint(code: string): string | undefined {
  if (code === 'UNAUTHORIZED' || code === LOCAL_CODES.NOT_LOGGED_IN) return HINTS.login;
  if (code === 'FORBIDDEN') return 'this needs an account with the admin role';
  if (code === 'RATE_LIMIT_EXCEEDED') return 'wait and retry, or ask an admin for a higher tier';
  return undefined;
}

/**
 * The error for a 429, whose body is the spec's `{success:false, message, detail}` (not the
 * error envelope): the limit that was hit (`detail`), when it frees up (`Retry-After` as a
 * duration) and the way out.
 */
export function rateLimitError(body: unknown, retryAfter: string | undefined, requestId?: string): CliError {
  const b = (body ?? {}) as { message?: unknown; detail?: unknown };
  const message = typeof b.message === 'string' ? b.message : 'Rate limit exceeded';
  const detail = typeof b.detail === 'string' ? b.detail : undefined;
  const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
  const frees = seconds === undefined ? 'when the window moves on' : `in ${formatDuration(seconds * 1000)}`;
  const context = [...(detail ? [`limit: ${detail}`] : []), `frees up ${frees}${seconds === undefined ? '' : ` (Retry-After: ${seconds} s)`}`];
  return new CliError({
    code: 'RATE_LIMIT_EXCEEDED',
    status: 429,
    requestId,
    message,
    details: detail ? { detail } : {},
    context,
    hint: `wait ${seconds === undefined ? 'a while' : formatDuration(seconds * 1000)} and retry, or ask an admin for a higher tier (\`stockscreen admin users set-tier <your email> pro\`); for a load test: \`stockscreen admin users loadtest-grant <your email> --for 2h\``,
  });
}

/** Shorthand for a usage error (exit 2). */
export function usageError(message: string, hint?: string): CliError {
  return new CliError({ code: LOCAL_CODES.USAGE, message, hint });
}

/** The error code the table maps to an HTTP status, for responses without an error envelope. */
export function codeForStatus(status: number): string {
  const match = (Object.keys(ERROR_CODES) as ErrorCode[]).find((code) => ERROR_CODES[code] === status);
  return match ?? `HTTP_${status}`;
}

/**
 * Render an error for stderr: `error: <message> (<CODE>, request <id>)`, one line per
 * field problem, then `hint: …`. Unknown errors print their message only.
 */
export function formatError(err: unknown): string {
  if (!(err instanceof CliError)) {
    const message = err instanceof Error ? err.message : String(err);
    return `error: ${message}\n`;
  }
  const tags = [err.code, err.requestId ? `request ${err.requestId}` : undefined].filter(Boolean).join(', ');
  const lines = [`error: ${err.message} (${tags})`];
  if (err.code === 'INVALID_REQUEST') {
    for (const [field, problem] of Object.entries(err.details)) lines.push(`  ${field}: ${stringify(problem)}`);
  }
  for (const line of err.context) lines.push(`  ${line}`);
  if (err.hint) lines.push(`hint: ${err.hint}`);
  return lines.join('\n') + '\n';
}

/** An error as `--json` prints it on stdout: `{"error":{"code","message","details"}}` (the spec's error object). */
export function jsonError(err: unknown): { error: { code: string; message: string; details: Record<string, unknown> } } {
  if (!(err instanceof CliError)) return { error: { code: 'INTERNAL_ERROR', message: err instanceof Error ? err.message : String(err), details: {} } };
  const details: Record<string, unknown> = { ...err.details };
  if (err.context.length > 0) details.context = err.context;
  if (err.requestId) details.request_id = err.requestId;
  return { error: { code: err.code, message: err.message, details } };
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Exit code for anything thrown by a command. */
export function exitCodeOf(err: unknown): number {
  return err instanceof CliError ? err.exitCode : EXIT.ERROR;
}
