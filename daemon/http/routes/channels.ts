/**
 * Notification channel endpoints: a user's webhook, Telegram, Slack, Discord and e-mail
 * channels (CRUD scoped to the owner: another user's channel is a 404), and a test message.
 * A webhook's signing secret is in the creation answer only; bot tokens and webhook URLs'
 * secret paths are never answered.
 */
import type { Request } from 'express';
import { z } from 'zod';
import type { ChannelPatch, Channel as ChannelWire, CreatedChannel, NewChannel } from '../../contract/notify.js';
import { CHANNEL_TYPES } from '../../contract/notify.js';
import type { ChannelService } from '../../notify/channel-service.js';
import { deliveryView } from '../../notify/delivery-view.js';
import { MAX_URL_LENGTH } from '../../notify/outbound.js';
import type { ApiBuilder, ValidRequest } from '../api.js';
import { sendSuccess } from '../envelope.js';
import { deliverySchema } from './deliveries.js';

const channelType = z.enum(CHANNEL_TYPES, { error: `must be one of ${CHANNEL_TYPES.join(', ')}` });
const name = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');
const url = z.string().max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`).describe('https:// URL (plain http:// only to addresses the operator allows)');
const botToken = z
  .string()
  .max(200, 'must be at most 200 characters')
  .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,120}$/, 'must be a bot token from @BotFather (123456:ABC…)')
  .describe('A secret: accepted, never shown again');
const chatId = z
  .string()
  .max(40, 'must be at most 40 characters')
  .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'must be a numeric chat id or @channelusername');
const address = z.email('must be a valid email address').max(254, 'must be at most 254 characters');
const idParams = z.object({ id: z.uuid('must be a channel id') });

const createBody = z.strictObject({
  type: channelType,
  name,
  url: url.optional().describe('webhook, slack, discord'),
  bot_token: botToken.optional().describe('telegram (a secret: accepted, never shown again)'),
  chat_id: chatId.optional().describe('telegram'),
  address: address.optional().describe('email'),
});
const updateBody = z
  .strictObject({
    name: name.optional(),
    enabled: z.boolean().optional().describe('true resumes a channel switched off after a receiver refused it for good'),
    url: url.optional(),
    bot_token: botToken.optional(),
    chat_id: chatId.optional(),
    address: address.optional(),
    rotate_secret: z.literal(true).optional().describe('webhook: a new signing secret, shown once in this answer'),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one of name, enabled, url, bot_token, chat_id, address, rotate_secret' });

/** A channel in the OpenAPI document. */
export const channelSchema = z
  .object({
    id: z.string(), type: channelType, name: z.string(),
    target: z.string().describe('Where it sends: a webhook URL, a Telegram chat id, an e-mail address, or a Slack/Discord URL with its secret path cut'),
    enabled: z.boolean(), disabled_reason: z.string().nullable().describe('Why it was switched off (a receiver answered 410 Gone, a deleted webhook or chat…)'),
    created_at: z.string(), updated_at: z.string(),
  })
  .meta({ id: 'Channel' });
/** A channel as created: a webhook's signing secret, shown this once. */
export const createdChannelSchema = channelSchema
  .extend({ secret: z.string().optional().describe('A webhook\'s Standard Webhooks signing secret (whsec_…): store it now, it is never shown again') })
  .meta({ id: 'CreatedChannel' });

/** Register the channel routes. */
export function registerChannelRoutes(api: ApiBuilder, deps: { channels: ChannelService }): void {
  const tags = ['notifications'];
  const { channels } = deps;
  const owner = (req: Request) => ({ id: req.user!.id, tier: req.user!.tier });
  const idOf = (req: ValidRequest<{ params: z.output<typeof idParams> }>) => req.valid.params.id;

  api.route({ method: 'get', path: '/channels', summary: 'Your notification channels', tags, access: 'user', response: z.array(channelSchema) }, async (req, res) => {
    sendSuccess<ChannelWire[]>(req, res, await channels.list(req.user!.id));
  });
  api.route(
    {
      method: 'post', path: '/channels', summary: 'Add a notification channel (webhook, telegram, slack, discord, email)', tags, access: 'user', body: createBody,
      description:
        '`{type: "webhook", name, url}` — signed with Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>); ' +
        'the answer carries its signing secret (whsec_…) this once. `{type: "telegram", name, bot_token, chat_id}`, `{type: "slack"|"discord", name, url}` (the incoming-webhook URL), ' +
        '`{type: "email", name, address}` (needs the operator\'s SMTP server). A URL that resolves to a loopback, private, link-local or metadata address is a 400 unless the operator allows it. ' +
        'Channels per user are capped by tier (`channel_caps`: free 3, basic 10, pro 50): over → 403.',
      status: 201, response: createdChannelSchema, errors: [403],
    },
    async (req, res) => sendSuccess<CreatedChannel>(req, res, await channels.create(owner(req), req.valid.body), { status: 201 }),
  );
  api.route({ method: 'get', path: '/channels/:id', summary: 'One channel', tags, access: 'user', params: idParams, response: channelSchema, errors: [404] }, async (req, res) => {
    sendSuccess<ChannelWire>(req, res, await channels.get(req.user!.id, idOf(req)));
  });
  api.route(
    { method: 'patch', path: '/channels/:id', summary: 'Change a channel (name, enabled, destination, bot token; rotate a webhook\'s secret)', tags, access: 'user', params: idParams, body: updateBody, response: createdChannelSchema, errors: [404] },
    async (req, res) => sendSuccess<CreatedChannel>(req, res, await channels.update(req.user!.id, idOf(req), req.valid.body)),
  );
  api.route(
    { method: 'delete', path: '/channels/:id', summary: 'Delete a channel (alerts and digests stop using it; its delivery log goes with it)', tags, access: 'user', params: idParams, status: 204, errors: [404] },
    async (req, res) => {
      await channels.delete(req.user!.id, idOf(req));
      res.status(204).end();
    },
  );
  api.route(
    {
      method: 'post', path: '/channels/:id/test', summary: 'Send a test message now (one attempt, in the delivery log)', tags, access: 'user', params: idParams, response: deliverySchema, errors: [404],
      description: 'Answers the delivery after its one attempt: `delivered`, or `dead` with the receiver\'s status code and error. A webhook test has type `channel.test`.',
    },
    async (req, res) => sendSuccess(req, res, deliveryView(await channels.test(req.user!.id, idOf(req)))),
  );
}
