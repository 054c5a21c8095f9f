/**
 * Real local receivers for notification tests, each following its service's documented protocol:
 *
 * - `startWebhookReceiver`: an HTTP server that verifies every request with the Standard Webhooks
 *   reference verifier (the `standardwebhooks` package: `Webhook.verify(body, headers)`, 5-minute
 *   tolerance) and answers what the test scripts (a status, a Retry-After, or no answer at all).
 * - `startFakeTelegram`: the Telegram Bot API's `sendMessage` (https://core.telegram.org/bots/api:
 *   `POST /bot<token>/sendMessage` with JSON `{chat_id, text}`; answers `{"ok":true,"result":Message}`
 *   or `{"ok":false,"error_code","description"}` with the same HTTP status; flood control is 429 with
 *   `parameters.retry_after` in seconds, "Too Many Requests: retry after N"; an unknown token is
 *   401 "Unauthorized", an unknown chat 400 "Bad Request: chat not found"; text is 1–4096 characters).
 *   Shapes checked against public clients (grammY's auto-retry plugin reads `parameters.retry_after`;
 *   vrumger/telegram-errors lists the descriptions).
 * - `startFakeSlack`: an incoming webhook (docs.slack.dev "Sending messages using incoming webhooks";
 *   api.slack.com changelog 2016-05-17 "Improving error conditions for Incoming Webhooks"): `POST {text}`
 *   → 200 `ok`; 400 `invalid_payload` / `no_text`; 404 `channel_not_found`; 410 `channel_is_archived`.
 * - `startFakeDiscord`: Execute Webhook (discord/discord-api-docs, docs/resources/webhook.mdx:
 *   `POST /webhooks/{id}/{token}`, `content` up to 2,000 characters, 204 No Content without `wait`;
 *   docs/topics/rate-limits.md: 429 with `Retry-After` and a JSON body `{message, retry_after, global}`,
 *   `retry_after` in seconds with decimals; a deleted webhook is 404 Unknown Webhook, code 10015).
 * - `startSmtpReceiver`: a real SMTP server (the `smtp-server` package) keeping each message it
 *   accepts; it can refuse recipients with a temporary (451) or permanent (550) reply.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got. */
export interface Received {
  n: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  /** Receipt time on the test's clock (ms). */
  at: number;
}

/** What a scripted receiver answers to the n-th request (1-based). `hang`: never answer. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
}

/** A running receiver. */
export interface Receiver<R extends Received = Received> {
  url: string;
  received: R[];
  /** Resolves once `count` requests (matching `filter`) have arrived. */
  waitFor(count: number, filter?: (r: R) => boolean): Promise<R[]>;
  close(): Promise<void>;
}

function serve<R extends Received>(handle: (req: IncomingMessage, body: string, res: ServerResponse, record: (extra?: Partial<R>) => R) => void): Promise<Receiver<R>> {
  const received: R[] = [];
  const waiters: { count: number; filter: (r: R) => boolean; resolve: (rs: R[]) => void }[] = [];
  const hanging = new Set<ServerResponse>();
  const check = () => {
    for (const w of [...waiters]) {
      const matching = received.filter(w.filter);
      if (matching.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(matching);
      }
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const record = (extra: Partial<R> = {}) => {
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const r = { n: received.length + 1, path: req.url ?? '', headers: req.headers as Record<string, string>, body, json, at: Date.now(), ...extra } as R;
        received.push(r);
        queueMicrotask(check);
        return r;
      };
      res.on('close', () => hanging.delete(res));
      hanging.add(res);
      handle(req, body, res, record);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        received,
        waitFor: (count, filter = () => true) =>
          new Promise((r) => {
            waiters.push({ count, filter, resolve: r });
            check();
          }),
        async close() {
          for (const res of hanging) res.destroy();
          server.closeAllConnections();
          server.close();
          await once(server, 'close').catch(() => undefined);
        },
      });
    });
  });
}

function reply(res: ServerResponse, r: Reply): void {
  if (r.hang) return;
  res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
  res.end(r.body ?? '');
}

/** A webhook request with its signature check. */
export interface WebhookReceived extends Received {
  /** The reference verifier accepted it. */
  verified: boolean;
  verifyError?: string;
}

/**
 * A Standard Webhooks receiver. `secret(path)` gives the signing secret to verify with (set it once the
 * channel is created); `script(n, r)` answers the n-th request (default 204).
 */
export function startWebhookReceiver(options: { secret: (path: string) => string | undefined; script?: (n: number, r: WebhookReceived) => Reply }): Promise<Receiver<WebhookReceived>> {
  return serve<WebhookReceived>((req, body, res, record) => {
    let verified = false;
    let verifyError: string | undefined;
    const secret = options.secret((req.url ?? '').split('?')[0]!);
    try {
      if (!secret) throw new Error('no secret yet');
      new Webhook(secret).verify(body, req.headers as Record<string, string>);
      verified = true;
    } catch (err) {
      verifyError = (err as Error).message;
    }
    const r = record({ verified, verifyError });
    reply(res, options.script?.(r.n, r) ?? { status: 204 });
  });
}

/** A Telegram Bot API fake. `tokens` are the bots it knows, `chats` the chats they may write to. */
export function startFakeTelegram(options: { tokens: string[]; chats: string[]; script?: (n: number, r: Received) => Reply | undefined }): Promise<Receiver> {
  let messageId = 0;
  const fail = (res: ServerResponse, code: number, description: string, parameters?: Record<string, unknown>) =>
    reply(res, { status: code, body: JSON.stringify({ ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) }) });
  return serve((req, _body, res, record) => {
    const r = record();
    const m = /^\/bot([^/]+)\/sendMessage$/i.exec(r.path);
    if (req.method !== 'POST' || !m) return fail(res, 404, 'Not Found');
    if (!options.tokens.includes(m[1]!)) return fail(res, 401, 'Unauthorized');
    const scripted = options.script?.(r.n, r);
    if (scripted) return reply(res, scripted);
    const chatId = r.json?.chat_id;
    const text = r.json?.text;
    if (chatId === undefined) return fail(res, 400, 'Bad Request: chat_id is empty');
    if (typeof text !== 'string' || text.length === 0) return fail(res, 400, 'Bad Request: message text is empty');
    if (text.length > 4096) return fail(res, 400, 'Bad Request: message is too long');
    if (!options.chats.includes(String(chatId))) return fail(res, 400, 'Bad Request: chat not found');
    reply(res, { status: 200, body: JSON.stringify({ ok: true, result: { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat: { id: Number(chatId), type: 'private' }, text } }) });
  });
}

/** A Telegram flood-control answer (HTTP 429, `parameters.retry_after` seconds). */
export function telegramFlood(retryAfterS: number): Reply {
  return { status: 429, body: JSON.stringify({ ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfterS}`, parameters: { retry_after: retryAfterS } }) };
}

/** A Slack incoming-webhook fake at `/services/T000/B000/<secret>`. */
export function startFakeSlack(options: { script?: (n: number, r: Received) => Reply | undefined } = {}): Promise<Receiver> {
  return serve((_req, _body, res, record) => {
    const r = record();
    const scripted = options.script?.(r.n, r);
    if (scripted) return reply(res, scripted);
    if (r.json === undefined) return reply(res, { status: 400, headers: { 'content-type': 'text/plain' }, body: 'invalid_payload' });
    if (typeof r.json.text !== 'string' || r.json.text === '') return reply(res, { status: 400, headers: { 'content-type': 'text/plain' }, body: 'no_text' });
    reply(res, { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' });
  });
}

/** A Discord Execute Webhook fake at `/api/webhooks/<id>/<token>`. */
export function startFakeDiscord(options: { script?: (n: number, r: Received) => Reply | undefined } = {}): Promise<Receiver> {
  return serve((_req, _body, res, record) => {
    const r = record();
    const scripted = options.script?.(r.n, r);
    if (scripted) return reply(res, scripted);
    const content = r.json?.content;
    if (typeof content !== 'string' || content.length === 0) return reply(res, { status: 400, body: JSON.stringify({ message: 'Cannot send an empty message', code: 50006 }) });
    if (content.length > 2000) return reply(res, { status: 400, body: JSON.stringify({ message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } }) });
    res.writeHead(204);
    res.end();
  });
}

/** A Discord rate-limit answer. */
export function discordRateLimited(retryAfterS: number): Reply {
  return { status: 429, headers: { 'retry-after': String(Math.ceil(retryAfterS)) }, body: JSON.stringify({ message: 'You are being rate limited.', retry_after: retryAfterS, global: false }) };
}

/** One e-mail the SMTP receiver accepted. */
export interface Mail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  messageId: string;
  text: string;
}

/** A running SMTP receiver. */
export interface SmtpReceiver {
  url: string;
  mails: Mail[];
  /** RCPT TO attempts (accepted or refused), in order. */
  attempts: number;
  waitFor(count: number): Promise<Mail[]>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1; `refuse(n)` answers the n-th RCPT TO with a reply code (e.g. 451, 550) or accepts it (undefined). */
export async function startSmtpReceiver(options: { refuse?: (n: number) => number | undefined } = {}): Promise<SmtpReceiver> {
  const mails: Mail[] = [];
  const waiters: { count: number; resolve: (m: Mail[]) => void }[] = [];
  let attempts = 0;
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onRcptTo(_address, _session, callback) {
      attempts++;
      const code = options.refuse?.(attempts);
      if (code) return callback(Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
        const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw,
          subject: header('Subject'), messageId: header('Message-ID'), text: rest.join('\n\n'),
        });
        for (const w of [...waiters]) if (mails.length >= w.count) (waiters.splice(waiters.indexOf(w), 1), w.resolve(mails));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    get attempts() {
      return attempts;
    },
    waitFor: (count) => new Promise((resolve) => (mails.length >= count ? resolve(mails) : waiters.push({ count, resolve }))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
