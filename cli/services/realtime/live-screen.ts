/**
 * The flow of `stockscreen screen --live`: flags → one screen subscribe message (a preset by
 * id, a template with its overrides, or the inline query of --where/--filter/…), sent on each
 * new session (a restored session gets its live screen back from the server, with the
 * membership diff since the disconnect); then either NDJSON (--json or piped stdout: the
 * live-screen messages, one per line) or the Ink view, until Ctrl-C, q, --count or --duration.
 */
import { usageError } from '../session/errors.js';
import { isLiveScreenMessage } from './live-screen-state.js';
import { getPreset, resolvePresetId } from '../screening/presets.js';
import { applyOverrides, buildScreenBody, hasQueryFlags, overridesFrom } from '../screening/screen-flags.js';
import type { ScreenCommandFlags } from '../screening/screen-run.js';
import { checkTemplateId } from '../screening/screen.js';
import type { Session } from '../session/session.js';
import { runUntilStopped, wsTokenSource, type StopConditions, type SubscriptionLedger } from './watch.js';
import { createWsClient, type WsClient } from '../transport/ws-client.js';
import type { ReceivedMessage } from '../../../daemon/contract/ws.js';

/**
 * The subscribe message `flags` describe.
 * @throws CliError USAGE for conflicting flags; NOT_FOUND for an unknown preset
 */
export async function liveSubscribeMessage(session: Session, flags: ScreenCommandFlags, dwellS?: number): Promise<Record<string, unknown>> {
  // No dwell asked: the field is left out, so the server's default applies.
  const base = { type: 'subscribe', subscription_type: 'screen', ...(dwellS ? { dwell_s: dwellS } : {}) };
  if (flags.csv) throw usageError('--live and --csv exclude each other');
  if (flags.preset !== undefined && flags.template !== undefined) throw usageError('give --preset or --template, not both');
  if (flags.preset === undefined && flags.template === undefined) return { ...base, query: buildScreenBody(flags) };
  if (hasQueryFlags(flags)) throw usageError('--where, --filter, --exclude and --sector cannot change a preset or template');
  const overrides = overridesFrom(flags);
  const changed = Object.keys(overrides).length > 0;
  if (flags.template !== undefined) return { ...base, targets: [`template:${checkTemplateId(flags.template)}`], ...(changed ? { overrides } : {}) };
  // A preset with overrides is its saved query with them applied, sent inline.
  if (changed) return { ...base, query: applyOverrides((await getPreset(session, flags.preset!)).data.query, overrides) };
  return { ...base, targets: [`preset:${await resolvePresetId(session, flags.preset!)}`] };
}

/** Send `subscribe` on each new session (not on a restored one: the server restores the screen). Returns the unsubscribe function. */
export function subscribeOnEachSession(client: WsClient, message: Record<string, unknown>): () => void {
  return client.on((e) => {
    if (e.type === 'status' && e.status.state === 'connected') client.send(message);
  });
}

/** When to stop. */
export interface LiveStop {
  count?: number;
  durationMs?: number;
}

/** How the screen reports. */
export interface LiveOptions {
  /** Report an entry (exit) only once it has held this many seconds. */
  dwellS?: number;
}

/**
 * Run the live screen until stopped.
 * @throws CliError USAGE for bad flags, when the first connection fails, or when the screen is refused
 */
export async function runLiveScreen(session: Session, flags: ScreenCommandFlags, stopAt: LiveStop, signal: AbortSignal, options: LiveOptions = {}): Promise<void> {
  const message = await liveSubscribeMessage(session, flags, options.dwellS);
  const token = await wsTokenSource(session);
  if (!token) throw usageError('live screens need a login', 'run `stockscreen login` first');
  const client = createWsClient({ baseUrl: session.baseUrl, token, subscriptions: [] });
  const off = subscribeOnEachSession(client, message);
  // The one screen refused (SUBSCRIPTION_FAILED) ends the command: nothing left to watch.
  let refused = false;
  const refusedLedger: SubscriptionLedger = {
    observe: (m) => (m.type === 'error' && m.code === 'SUBSCRIPTION_FAILED' && !refused ? ((refused = true), ['screen']) : []),
    allRejected: () => refused,
  };
  // --count counts live-screen messages (what --json prints), not the connection's other ones.
  const enough = new AbortController();
  let seen = 0;
  const counted = (m: ReceivedMessage) => {
    if (!isLiveScreenMessage(m)) return false;
    if (stopAt.count !== undefined && ++seen >= stopAt.count) enough.abort();
    return true;
  };
  const stop = (extra: AbortSignal[] = []): StopConditions => ({ durationMs: stopAt.durationMs, signal: AbortSignal.any([signal, enough.signal, ...extra]) });
  try {
    if (session.out.mode !== 'tty') {
      await runUntilStopped(client, refusedLedger, session.io.stderr, stop(), (m) => {
        if (counted(m)) session.io.stdout.write(JSON.stringify(m) + '\n');
      });
      return;
    }
    const quit = new AbortController();
    const view = session.views.liveScreen({ client, color: session.out.color, onExit: () => quit.abort() }, session.io);
    try {
      await runUntilStopped(client, refusedLedger, { write: () => true }, stop([quit.signal]), (m) => void counted(m));
    } finally {
      await view.close();
    }
  } finally {
    off();
  }
}
