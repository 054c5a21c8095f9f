/**
 * Standard Webhooks signing, through the specification's reference package (`standardwebhooks`):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed
 * with the channel's secret, serialised as `whsec_` + base64 of 32 random bytes (the specification
 * asks for 24 to 64). The id is the delivery's (the same on every attempt: the receiver's
 * idempotency key); the timestamp is the attempt's, in whole seconds.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The three Standard Webhooks headers of one attempt. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Sign `body` for the attempt made at `nowMs`. @throws Error for a malformed secret */
export function signWebhook(secret: string, id: string, nowMs: number, body: string): SignedHeaders {
  const at = new Date(Math.floor(nowMs / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(nowMs / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}
