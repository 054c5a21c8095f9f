import { describe, expect, it } from 'vitest';
import { errorFromResponse, unreachable } from '../../../../../cli/services/transport/api-client.js';
import { CliError, codeForStatus, exitCodeFor, exitCodeOf, formatError } from '../../../../../cli/services/session/errors.js';

describe('exit codes', () => {
  it('maps authentication to 4, usage and cancel to 2, everything else to 1', () => {
    expect(exitCodeFor('UNAUTHORIZED')).toBe(4);
    expect(exitCodeFor('NOT_LOGGED_IN')).toBe(4);
    expect(exitCodeFor('USAGE')).toBe(2);
    expect(exitCodeFor('CANCELLED')).toBe(2);
    for (const code of ['FORBIDDEN', 'CONFLICT', 'NOT_FOUND', 'INTERNAL_ERROR', 'ECONNREFUSED']) expect(exitCodeFor(code)).toBe(1);
    expect(exitCodeOf(new Error('bug'))).toBe(1);
  });
});

describe('formatError', () => {
  it('prints message, code and request id, then the login hint for 401', () => {
    const err = new CliError({ code: 'UNAUTHORIZED', message: 'Access token expired', requestId: 'req-123', status: 401 });
    expect(formatError(err)).toBe('error: Access token expired (UNAUTHORIZED, request req-123)\nhint: run `stockscreen login`\n');
  });

  it('omits the request id when there is none and lists field problems of INVALID_REQUEST', () => {
    const err = new CliError({ code: 'INVALID_REQUEST', message: 'Invalid request', details: { email: 'must be a valid email address', password: 'must be at least 8 characters' } });
    expect(formatError(err)).toBe('error: Invalid request (INVALID_REQUEST)\n  email: must be a valid email address\n  password: must be at least 8 characters\n');
  });

  it('prints context lines (a log tail) indented before the hint', () => {
    const err = new CliError({ code: 'DAEMON', message: 'stockscreend exited', context: ['line 1', 'line 2'], hint: 'fix it' });
    expect(formatError(err)).toBe('error: stockscreend exited (DAEMON)\n  line 1\n  line 2\nhint: fix it\n');
  });

  it('prints an unexpected error as its message only', () => {
    expect(formatError(new TypeError('boom'))).toBe('error: boom\n');
  });
});

describe('errorFromResponse', () => {
  it('carries the envelope code, message, details, status and request id', () => {
    const body = { status: 'error', error: { code: 'CONFLICT', message: 'An account with this email already exists', details: { email: 'already registered' } }, meta: { timestamp: 't', request_id: 'rid-1' } };
    const err = errorFromResponse({ status: 409, body, requestId: 'header-id' }, 'http://h:1');
    expect(err).toMatchObject({ code: 'CONFLICT', message: 'An account with this email already exists', status: 409, requestId: 'rid-1', details: { email: 'already registered' }, exitCode: 1 });
  });

  it('maps a 401 envelope to exit 4 with the login hint', () => {
    const body = { status: 'error', error: { code: 'UNAUTHORIZED', message: 'Access token revoked', details: { reason: 'revoked' } }, meta: { request_id: 'r' } };
    const err = errorFromResponse({ status: 401, body }, 'http://h:1');
    expect(err.exitCode).toBe(4);
    expect(err.hint).toContain('stockscreen login');
  });

  it('derives the code from the status table when the body is not an envelope', () => {
    expect(errorFromResponse({ status: 503, body: undefined, requestId: 'x' }, 'http://h:1')).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: 'x' });
    expect(codeForStatus(404)).toBe('NOT_FOUND');
    expect(codeForStatus(502)).toBe('HTTP_502');
  });
});

describe('unreachable', () => {
  it('names the URL tried, the system code, and how to start the daemon', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
    const err = unreachable('http://127.0.0.1:8000', cause, 30_000);
    expect(formatError(err)).toBe('error: cannot reach stockscreend at http://127.0.0.1:8000 (ECONNREFUSED)\nhint: start it with `stockscreen daemon start` or `npm run up`\n');
    expect(err.exitCode).toBe(1);
  });

  it('finds the code inside an AggregateError (several addresses tried)', () => {
    const cause = new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all failed');
    expect(unreachable('http://localhost:8000', cause, 1000).code).toBe('ECONNREFUSED');
  });

  it('reports a timeout with the number of seconds waited', () => {
    const err = unreachable('http://h:1', new DOMException('timed out', 'TimeoutError'), 2500);
    expect(err.message).toBe('no answer from stockscreend at http://h:1 within 2.5 s');
  });
});
