/**
 * `stockscreen channels add <type> [target]`: add a notification channel. A Telegram bot token is
 * never taken on the command line (`ps` would show it): a hidden prompt on a terminal, else
 * `--bot-token-stdin` or STOCKSCREEN_BOT_TOKEN. A webhook's signing secret is printed this once.
 */
import { Argument, type Command } from 'commander';
import { CHANNEL_TYPES, type ChannelType, type NewChannel } from '../../../daemon/contract/notify.js';
import { channelRecord, createChannel } from '../../services/notify/channels.js';
import { usageError } from '../../services/session/errors.js';
import { canPrompt } from '../../services/session/prompt.js';
import type { Session } from '../../services/session/session.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../shared.js';

const TYPES_HELP = `
Types and their target:
  webhook URL       an https:// endpoint; requests are signed (Standard Webhooks: webhook-id,
                    webhook-timestamp, webhook-signature) with a whsec_ secret printed once
  telegram          --chat ID (a numeric chat id or @channel); the bot token is asked for
                    (hidden), or read with --bot-token-stdin, or from STOCKSCREEN_BOT_TOKEN
  slack URL         a Slack incoming-webhook URL (https://hooks.slack.com/services/…)
  discord URL       a Discord webhook URL (https://discord.com/api/webhooks/…)
  email ADDRESS     mail through the daemon's SMTP server (the operator sets STOCKSCREEN_SMTP_URL)
A URL that resolves to a private or loopback address is refused unless the daemon's operator
allows it (STOCKSCREEN_WEBHOOK_ALLOW_PRIVATE). Then choose it for alerts with --notify.`;

async function botToken(session: Session, fromStdin: boolean | undefined): Promise<string> {
  if (fromStdin) {
    const text = (await session.io.stdin.readAll()).trim();
    if (!text) throw usageError('--bot-token-stdin given but stdin was empty', 'e.g. `printf %s "$TOKEN" | stockscreen channels add telegram --chat 12345 --bot-token-stdin`');
    return text;
  }
  if (session.env.STOCKSCREEN_BOT_TOKEN) return session.env.STOCKSCREEN_BOT_TOKEN.trim();
  if (!canPrompt(session.io)) throw usageError('not a terminal, so the bot token cannot be asked for', 'pass --bot-token-stdin (piped) or set STOCKSCREEN_BOT_TOKEN');
  const token = (await session.prompter().ask({ label: 'Bot token (from @BotFather)', secret: true })).trim();
  if (!token) throw usageError('a bot token is required');
  return token;
}

/** Add `add` to the `channels` group. */
export function register(parent: Command, ctx: CliContext): void {
  parent
    .command('add')
    .description('Add a notification channel (piped: one row like `channels list`, plus a new webhook\'s secret)')
    .addArgument(new Argument('<type>', 'channel type').choices(CHANNEL_TYPES))
    .addArgument(new Argument('[target]', 'URL (webhook, slack, discord) or address (email)'))
    .option('--name <name>', 'a name to refer to it by (default: the type and target)')
    .option('--chat <id>', 'telegram: the chat id or @channelusername')
    .option('--bot-token-stdin', 'telegram: read the bot token from stdin')
    .addHelpText(
      'after',
      TYPES_HELP +
        '\n' +
        examples([
          'stockscreen channels add webhook https://example.com/hooks/stockscreen --name ops',
          'stockscreen channels add telegram --chat 123456789 --name phone',
          'printf %s "$TOKEN" | stockscreen channels add telegram --chat @mychannel --bot-token-stdin',
          'stockscreen channels add slack https://hooks.slack.com/services/T000/B000/XXXX --name team',
          'stockscreen channels add email me@example.com',
          'stockscreen alerts add 005930 price_above 80000 --notify phone',
        ]),
    )
    .action(
      action(ctx, async (session, cmd) => {
        const [type, target] = cmd.processedArgs as [ChannelType, string | undefined];
        const o = cmd.opts<{ name?: string; chat?: string; botTokenStdin?: boolean }>();
        const body: NewChannel = { type, name: '' };
        if (type === 'telegram') {
          if (!o.chat) throw usageError('a telegram channel needs --chat ID', 'e.g. stockscreen channels add telegram --chat 123456789');
          if (target) throw usageError('a telegram channel takes no target argument', 'give the chat with --chat');
          Object.assign(body, { chat_id: o.chat, bot_token: await botToken(session, o.botTokenStdin) });
        } else {
          if (!target) throw usageError(`a ${type} channel needs its ${type === 'email' ? 'address' : 'URL'}`, `e.g. stockscreen channels add ${type} ${type === 'email' ? 'me@example.com' : 'https://…'}`);
          if (o.chat || o.botTokenStdin) throw usageError('--chat and --bot-token-stdin are for telegram channels only');
          Object.assign(body, type === 'email' ? { address: target } : { url: target });
        }
        body.name = (o.name ?? `${type} ${o.chat ?? target ?? ''}`.trim()).slice(0, 100);
        const res = await createChannel(session, body);
        session.out.record(res.body, channelRecord(res.data, session.out.mode === 'tty'));
        session.out.info(`channel ${res.data.id} (${res.data.type} "${res.data.name}") added`);
        if (res.data.secret && session.out.mode !== 'json') {
          session.io.stderr.write('Store the signing secret now: it is never shown again (verify requests with any Standard Webhooks library).\n');
        }
      }),
    );
}
