/**
 * Requests Node's HTTP parser refuses before express sees them (a request line or headers
 * over 16 KB, a malformed request): answered with the spec's error envelope and the header
 * policy instead of Node's bare status line, then the connection is closed.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { API_CSP } from './middleware/security-headers.js';

function answer(code: ErrorCode, message: string): string {
  const status = ERROR_CODES[code];
  const body = JSON.stringify({ status: 'error', error: { code, message, details: {} }, meta: { timestamp: new Date().toISOString(), request_id: randomUUID() } });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'X-Content-Type-Options: nosniff',
    `Content-Security-Policy: ${API_CSP}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Answer parser errors of `server` with the error envelope. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset or a socket already answered: nothing to say.
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    socket.end(tooLarge ? answer('HEADERS_TOO_LARGE', 'Request line or headers too large (16 KB at most)') : answer('INVALID_REQUEST', 'Malformed HTTP request'));
  });
}
