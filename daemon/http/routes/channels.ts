/**
 * Notification channel endpoints: a user's webhook, Telegram, Slack, Discord and e-mail
 * channels (CRUD scoped to the owner: another user's channel is a 404), and a test message.
 * A webhook's signing secret is in the creation answer only; bot tokens and webhook URLs'
 * secret paths are never answered.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { Channel, ChannelPatch, CreatedChannel, Delivery, NewChannel } from '../../contract/notify.js';
import type { ChannelService } from '../../notify/channel-service.js';
import { deliveryView } from '../../notify/delivery-view.js';
import type { ApiBuilder, ValidRequest } from '../api.js';
import { sendSuccess } from '../envelope.js';

const idParams = z.object({ id: z.uuid('must be a channel id') });

/** Register the channel routes. */
export function registerChannelRoutes(api: ApiBuilder, deps: { channels: ChannelService }): void {
  const tags = ['notifications'];
  const { channels } = deps;
  const owner = (req: Request) => ({ id: req.user!.id, tier: req.user!.tier });
  const idOf = (req: ValidRequest<{ params: z.output<typeof idParams> }>) => req.valid.params.id;

  api.route({ method: 'get', path: '/channels', summary: 'Your notification channels', tags, access: 'user', response: z.array(Channel) }, async (req, res) => {
    sendSuccess<Channel[]>(req, res, await channels.list(req.user!.id));
  });
  api.route(
    {
      method: 'post', path: '/channels', summary: 'Add a notification channel (webhook, telegram, slack, discord, email)', tags, access: 'user', body: NewChannel,
      description:
        '`{type: "webhook", name, url}` — signed with Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>); ' +
        'the answer carries its signing secret (whsec_…) this once. `{type: "telegram", name, bot_token, chat_id}`, `{type: "slack"|"discord", name, url}` (the incoming-webhook URL), ' +
        '`{type: "email", name, address}` (needs the operator\'s SMTP server). A URL that resolves to a loopback, private, link-local or metadata address is a 400 unless the operator allows it. ' +
        'Channels per user are capped by tier (`channel_caps`: free 3, basic 10, pro 50): over → 403.',
      status: 201, response: CreatedChannel, errors: [403],
    },
    async (req, res) => sendSuccess<CreatedChannel>(req, res, await channels.create(owner(req), req.valid.body), { status: 201 }),
  );
  api.route({ method: 'get', path: '/channels/:id', summary: 'One channel', tags, access: 'user', params: idParams, response: Channel, errors: [404] }, async (req, res) => {
    sendSuccess<Channel>(req, res, await channels.get(req.user!.id, idOf(req)));
  });
  api.route(
    { method: 'patch', path: '/channels/:id', summary: 'Change a channel (name, enabled, destination, bot token; rotate a webhook\'s secret)', tags, access: 'user', params: idParams, body: ChannelPatch, response: CreatedChannel, errors: [404] },
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
      method: 'post', path: '/channels/:id/test', summary: 'Send a test message now (one attempt, in the delivery log)', tags, access: 'user', params: idParams, response: Delivery, errors: [404],
      description: 'Answers the delivery after its one attempt: `delivered`, or `dead` with the receiver\'s status code and error. A webhook test has type `channel.test`.',
    },
    async (req, res) => sendSuccess<Delivery>(req, res, deliveryView(await channels.test(req.user!.id, idOf(req)))),
  );
}
