/**
 * Idempotency keys for POST requests that start work (`Idempotency-Key` header): a client that
 * did not get an answer — a timeout, a dropped connection — sends the same request again with the
 * same key and gets the answer of the first one instead of starting the work twice.
 *
 * Kept in Redis, so every daemon of a deployment sees the same keys, per user (one user's key
 * never answers another's request) and per route, for 24 h. A key is first taken as `pending`
 * (SET NX, with a short lifetime so a daemon dying mid-request frees it), then replaced by the
 * answer once the work is started. A request whose work failed leaves no key: retrying it runs it.
 * The same key with a different body is refused (409): it is a client bug, not a retry.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { AppError, invalidRequest } from '../errors.js';

/** The request header. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long an answer is kept for its key (24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** How long a key stays taken by a request still running (its daemon may die: then the key frees). */
export const PENDING_TTL_MS = 60_000;

/** The header as OpenAPI documents it (validated by `idempotencyKeyOf`). */
export const idempotencyHeaderSchema = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().meta({
    description: 'Any unique string (1–255 visible ASCII characters, e.g. a UUID) per logical request. Sending the same request again with the same key within 24 h '
      + 'answers the first request\'s result (header `Idempotent-Replayed: true`) instead of doing the work again; keys are per user. '
      + 'The same key with a different body → 409; while the first request is still being answered → 409 with Retry-After.',
  }),
});

const KEY = /^[\x21-\x7E]{1,255}$/;

/**
 * The request's idempotency key, or undefined without one.
 * @throws AppError INVALID_REQUEST (details['Idempotency-Key']) for an empty, long or non-ASCII key
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!KEY.test(value)) throw invalidRequest('Invalid Idempotency-Key', { [IDEMPOTENCY_HEADER]: 'must be 1–255 visible ASCII characters (e.g. a UUID)' });
  return value;
}

/** A stored answer. */
export interface IdempotentAnswer {
  status: number;
  data: unknown;
}

/** What a request with a key finds. */
export type IdempotencyClaim =
  | { kind: 'new'; complete(answer: IdempotentAnswer): Promise<void>; release(): Promise<void> }
  | { kind: 'replay'; answer: IdempotentAnswer };

/** Idempotency keys of one kind of request. */
export interface IdempotencyStore {
  /**
   * Take `key` for `userId`'s request with body `body`, or find the answer of the request that took it.
   * @throws AppError CONFLICT when the key was used with another body, or its request is still being answered (details.in_progress);
   *   SERVICE_UNAVAILABLE when Redis cannot answer
   */
  claim(userId: string, key: string, body: unknown): Promise<IdempotencyClaim>;
}

interface Entry {
  state: 'pending' | 'done';
  fingerprint: string;
  token?: string;
  answer?: IdempotentAnswer;
}

// Replace or delete the entry only while it is still this request's pending entry.
const REPLACE_OWN = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then return redis.call('DEL', KEYS[1]) end
  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 0`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Create the store of `scope` (e.g. 'admin-jobs') on `redis`, keys named by `key(...)` under the deployment prefix. */
export function createIdempotencyStore(redis: Redis, key: (...parts: string[]) => string, scope: string): IdempotencyStore {
  const unavailable = (err: unknown): never => {
    if (err instanceof AppError) throw err;
    throw new AppError('SERVICE_UNAVAILABLE', 'Idempotency keys cannot be checked right now (Redis not reachable); try again');
  };
  return {
    async claim(userId, idempotencyKey, body) {
      const k = key('idem', scope, userId, sha256(idempotencyKey));
      const fingerprint = sha256(JSON.stringify(body) ?? '');
      const token = randomUUID();
      const pending = JSON.stringify({ state: 'pending', fingerprint, token } satisfies Entry);
      try {
        if ((await redis.set(k, pending, 'PX', PENDING_TTL_MS, 'NX')) === 'OK') {
          return {
            kind: 'new',
            async complete(answer) {
              const done = JSON.stringify({ state: 'done', fingerprint, answer } satisfies Entry);
              await redis.eval(REPLACE_OWN, 1, k, pending, done, String(IDEMPOTENCY_TTL_MS));
            },
            async release() {
              await redis.eval(REPLACE_OWN, 1, k, pending, '', '0').catch(() => undefined);
            },
          };
        }
        const raw = await redis.get(k);
        // Expired or released in between: the client may simply send it again.
        if (raw === null) throw new AppError('CONFLICT', 'The request with this Idempotency-Key just ended without an answer; send it again', { [IDEMPOTENCY_HEADER]: 'retry', in_progress: true });
        const entry = JSON.parse(raw) as Entry;
        if (entry.fingerprint !== fingerprint) {
          throw new AppError('CONFLICT', 'This Idempotency-Key was used for a different request', { [IDEMPOTENCY_HEADER]: 'already used with another body; use a new key for a new request', in_progress: false });
        }
        if (entry.state === 'pending' || !entry.answer) {
          throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still being answered; try again in a moment', { [IDEMPOTENCY_HEADER]: 'in progress', in_progress: true });
        }
        return { kind: 'replay', answer: entry.answer };
      } catch (err) {
        // A command that timed out here may still run once Redis answers again (a paused or slow
        // Redis keeps it queued): our SET NX would then leave a pending key that no request owns,
        // and every retry would hear "still being answered" until it lapses. Deleting it behind
        // that SET, on the same connection, frees the key for the retry; only our own entry goes.
        if (!(err instanceof AppError)) void redis.eval(REPLACE_OWN, 1, k, pending, '', '0').catch(() => undefined);
        return unavailable(err);
      }
    },
  };
}
