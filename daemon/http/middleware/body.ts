/**
 * Request bodies, read only when a route takes one and only after the caller is known:
 * `bodyGate` refuses from the headers alone (413 for a declared length over the route's
 * limit, 415 for a body that is not JSON) before anything is read; `jsonBody` then parses
 * at most the route's limit. Bad JSON and non-object bodies are translated in errors.ts.
 */
import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { AppError } from '../../errors.js';

/** The media types a JSON body may be sent as. */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** True when the request announces a body (a length above zero, or a chunked upload). */
function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined;
}

/**
 * Refuse what the headers already condemn, reading nothing: a declared length above `limit`
 * (413) or a body that is not JSON (415). The connection is closed after such an answer so an
 * unread upload is never drained.
 */
export function bodyGate(limit: number): RequestHandler {
  return (req, res, next) => {
    if (!hasBody(req)) return next();
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      res.setHeader('Connection', 'close');
      throw new AppError('PAYLOAD_TOO_LARGE', `Request body too large: this endpoint accepts at most ${limit} bytes`, { limit_bytes: limit, content_length: declared });
    }
    if (!req.is(JSON_TYPES)) {
      res.setHeader('Connection', 'close');
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON (Content-Type: application/json)', {
        'content-type': req.headers['content-type'] ?? '(none)',
      });
    }
    next();
  };
}

const parsers = new Map<number, RequestHandler>();

function keepRaw(req: IncomingMessage, _res: unknown, buf: Buffer): void {
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = buf;
}

/** The JSON body parser for a route limit (one parser per distinct limit, built on first use). */
export function jsonBody(limit: number): RequestHandler {
  let parser = parsers.get(limit);
  // The raw bytes stay on the request (`req.rawBody`): a route may key a memo of parsed bodies by them.
  if (!parser) parsers.set(limit, (parser = express.json({ limit, type: JSON_TYPES, strict: true, verify: keepRaw })));
  return parser;
}
