/** Request-id middleware: echoes a valid incoming X-Request-Id, else assigns a uuid. */
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const VALID_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Sets `req.id` and the `X-Request-Id` response header. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && VALID_ID.test(incoming) ? incoming : randomUUID();
    req.valid = {};
    res.setHeader('X-Request-Id', req.id);
    next();
  };
}
