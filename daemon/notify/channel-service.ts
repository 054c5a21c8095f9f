/**
 * Notification channels a user owns: create (checked: a URL must be safe to call, an e-mail
 * channel needs the operator's SMTP server), read, update, delete, and a test message. Secrets
 * are taken once: a webhook's signing secret is generated and shown in the creation answer only
 * (or when rotated); a Telegram bot token, and the secret path of Slack and Discord webhook URLs,
 * are never shown. Another user's channel is "not found". Channels per user are capped by tier.
 */
import { randomUUID } from 'node:crypto';
import type { Channel, ChannelPatch, ChannelType, CreatedChannel, NewChannel } from '../contract/notify.js';
import { AppError, invalidRequest, notFound } from '../errors.js';
import type { Clock } from '../infra/clock.js';
import type { Tier } from '../kernel/roles.js';
import type { ChannelRecord, ChannelsRepo, ChannelUpdate } from '../store/channels-repo.js';
import type { DeliveriesRepo, DeliveryEntry } from '../store/deliveries-repo.js';
import { testBody } from './messages.js';
import { OutboundError, type Outbound } from './outbound.js';
import { newWebhookSecret } from './signing.js';

/** Most channels per tier; null = unlimited. */
export type ChannelCaps = Readonly<Record<Tier, number | null>>;

/** Collaborators. */
export interface ChannelServiceDeps {
  channels: ChannelsRepo;
  deliveries: Pick<DeliveriesRepo, 'create' | 'entry'>;
  outbound: Pick<Outbound, 'vet'>;
  /** One attempt now (DeliveryService.attemptOnce). */
  attemptOnce(deliveryId: string): Promise<void>;
  caps: ChannelCaps;
  /** Whether an SMTP server is configured. */
  smtp: boolean;
  maxAgeMs: number;
  clock: Clock;
}

/** The channel service. */
export interface ChannelService {
  /** @throws AppError INVALID_REQUEST (unsafe URL, no SMTP server), FORBIDDEN (tier cap) */
  create(owner: { id: string; tier: Tier }, input: NewChannel): Promise<CreatedChannel>;
  /** @throws AppError NOT_FOUND */
  get(userId: string, id: string): Promise<Channel>;
  list(userId: string): Promise<Channel[]>;
  /** @throws AppError NOT_FOUND, INVALID_REQUEST */
  update(userId: string, id: string, patch: ChannelPatch): Promise<CreatedChannel>;
  /** @throws AppError NOT_FOUND */
  delete(userId: string, id: string): Promise<void>;
  /** Send a test message now (one attempt, recorded in the delivery log). @throws AppError NOT_FOUND */
  test(userId: string, id: string): Promise<DeliveryEntry>;
  /**
   * Check that every id is one of the user's channels.
   * @throws AppError INVALID_REQUEST naming `<field>.<index>` for each other id
   */
  checkOwned(userId: string, ids: readonly string[], field: string): Promise<void>;
}

/** A Slack or Discord webhook URL with its secret path cut: its host and first segments. */
export function redactWebhookUrl(url: string): string {
  try {
    const u = new URL(url);
    const parts = u.pathname.split('/').filter(Boolean);
    const shown = parts.slice(0, 2).join('/');
    const next = parts[2] ? `/${parts[2].slice(0, 2)}…` : '';
    return `${u.protocol}//${u.host}/${shown}${next}${parts.length > 3 ? '/…' : ''}`;
  } catch {
    return '(hidden)';
  }
}

/** A channel as the API shows it: never its secret. */
export function channelView(c: ChannelRecord): Channel {
  const target = c.type === 'slack' || c.type === 'discord' ? redactWebhookUrl(c.target) : c.target;
  return { id: c.id, type: c.type, name: c.name, target, enabled: c.enabled, disabled_reason: c.disabled_reason, created_at: c.created_at, updated_at: c.updated_at };
}

/** The field that holds a type's destination. */
const TARGET_FIELD: Record<ChannelType, 'url' | 'chat_id' | 'address'> = { webhook: 'url', slack: 'url', discord: 'url', telegram: 'chat_id', email: 'address' };

/** A URL the daemon may call, or the 400 naming why not. */
async function vet(outbound: Pick<Outbound, 'vet'>, url: string): Promise<void> {
  try {
    await outbound.vet(url);
  } catch (err) {
    if (err instanceof OutboundError) throw invalidRequest('This URL cannot be used', { url: err.message });
    throw err;
  }
}

/** The stored target and secret of a new channel of `type`. */
async function destination(deps: ChannelServiceDeps, type: ChannelType, input: NewChannel): Promise<{ target: string; secret: string | null }> {
  const missing = (field: string) => invalidRequest(`A ${type} channel needs ${field}`, { [field]: `is required for ${type}` });
  switch (type) {
    case 'webhook':
    case 'slack':
    case 'discord':
      if (!input.url) throw missing('url');
      await vet(deps.outbound, input.url);
      return { target: input.url, secret: type === 'webhook' ? newWebhookSecret() : null };
    case 'telegram':
      if (!input.chat_id) throw missing('chat_id');
      if (!input.bot_token) throw missing('bot_token');
      return { target: input.chat_id, secret: input.bot_token };
    case 'email':
      if (!input.address) throw missing('address');
      if (!deps.smtp) throw invalidRequest('E-mail channels need an SMTP server, and this daemon has none', { type: 'email needs the operator to set STOCKSCREEN_SMTP_URL' });
      return { target: input.address, secret: null };
  }
}

/** Fields that do not belong to `type` are refused (a bot token sent to a webhook channel is a mistake worth naming). */
function checkFields(type: ChannelType, input: Partial<Record<'url' | 'chat_id' | 'address' | 'bot_token', unknown>>): void {
  const allowed = new Set<string>([TARGET_FIELD[type], ...(type === 'telegram' ? ['bot_token'] : [])]);
  const details: Record<string, string> = {};
  for (const f of ['url', 'chat_id', 'address', 'bot_token'] as const) if (input[f] !== undefined && !allowed.has(f)) details[f] = `not a field of a ${type} channel`;
  if (Object.keys(details).length) throw invalidRequest(`Fields that a ${type} channel does not have`, details);
}

/** The row update of `patch` on `current`, and the new signing secret when it rotates one. */
async function updateOf(deps: ChannelServiceDeps, current: ChannelRecord, patch: ChannelPatch): Promise<{ update: ChannelUpdate; secret: string | undefined }> {
  checkFields(current.type, patch);
  if (patch.rotate_secret && current.type !== 'webhook') throw invalidRequest('Only a webhook channel has a signing secret', { rotate_secret: `not for a ${current.type} channel` });
  const update: ChannelUpdate = {};
  if (patch.name !== undefined) update.name = patch.name;
  if (patch.enabled !== undefined) Object.assign(update, { enabled: patch.enabled, disabled_reason: null });
  if (patch.url !== undefined) {
    await vet(deps.outbound, patch.url);
    update.target = patch.url;
  }
  if (patch.chat_id !== undefined) update.target = patch.chat_id;
  if (patch.address !== undefined) update.target = patch.address;
  if (patch.bot_token !== undefined) update.secret = patch.bot_token;
  const secret = patch.rotate_secret ? newWebhookSecret() : undefined;
  if (secret) update.secret = secret;
  return { update, secret };
}

/** Create the channel service. */
export function createChannelService(deps: ChannelServiceDeps): ChannelService {
  async function owned(userId: string, id: string): Promise<ChannelRecord> {
    const c = await deps.channels.get(userId, id);
    if (!c) throw notFound('Channel', { id });
    return c;
  }

  return {
    async create(owner, input) {
      checkFields(input.type, input);
      const { target, secret } = await destination(deps, input.type, input);
      const write = await deps.channels.create(owner.id, { type: input.type, name: input.name, target, secret }, deps.caps[owner.tier]);
      if (!write.ok) {
        const limit = deps.caps[owner.tier];
        throw new AppError('FORBIDDEN', `Channel limit reached: the ${owner.tier} tier allows ${limit} channels and you have ${write.count}. Delete one, or upgrade your tier.`, { tier: owner.tier, limit, count: write.count });
      }
      return { ...channelView(write.channel), ...(input.type === 'webhook' ? { secret: secret! } : {}) };
    },
    async get(userId, id) {
      return channelView(await owned(userId, id));
    },
    async list(userId) {
      return (await deps.channels.list(userId)).map(channelView);
    },
    async update(userId, id, patch) {
      const { update, secret } = await updateOf(deps, await owned(userId, id), patch);
      const updated = await deps.channels.update(userId, id, update);
      if (!updated) throw notFound('Channel', { id });
      return { ...channelView(updated), ...(secret ? { secret } : {}) };
    },
    async delete(userId, id) {
      if (!(await deps.channels.delete(userId, id))) throw notFound('Channel', { id });
    },
    async test(userId, id) {
      const channel = await owned(userId, id);
      const now = deps.clock.now();
      const deliveryId = randomUUID();
      await deps.deliveries.create({
        id: deliveryId, user_id: userId, channel_id: channel.id, channel_type: channel.type, kind: 'test', body: testBody(deliveryId, channel.id, now),
        schedule_id: null, event_ids: [], now, deadline_at: now + deps.maxAgeMs,
      });
      await deps.attemptOnce(deliveryId);
      return (await deps.deliveries.entry(userId, deliveryId))!;
    },
    async checkOwned(userId, ids, field) {
      const mine = await deps.channels.ownedIds(userId, ids);
      const details: Record<string, string> = {};
      ids.forEach((id, i) => {
        if (!mine.has(id)) details[`${field}.${i}`] = 'no channel of yours has this id';
      });
      if (Object.keys(details).length) throw invalidRequest('Unknown channel', details);
    },
  };
}
