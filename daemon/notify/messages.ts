/**
 * What a delivery says: the JSON body webhooks receive (Standard Webhooks' `{type, timestamp,
 * data}`), frozen once per delivery, and the plain text chat and mail receivers read, rendered
 * from that body within each service's length limit (Telegram 4,096 characters, Discord 2,000,
 * Slack about 40,000), every stock of a grouped burst listed until the limit, then "… and N more".
 */
import type { ChannelType, DigestData, DigestMember, FiredEvent, WebhookBody } from '../contract/notify.js';
import type { FiredEventRow } from '../store/deliveries-repo.js';

/** Longest text each channel type takes (characters). */
export const TEXT_LIMITS: Readonly<Record<ChannelType, number>> = { telegram: 4096, discord: 2000, slack: 39_000, email: 100_000, webhook: 100_000 };

/** The body of a delivery of alert firings (one, or a grouped burst), oldest first. */
export function alertFiredBody(deliveryId: string, events: readonly FiredEventRow[]): string {
  const fired: FiredEvent[] = events.map((e) => ({
    event_id: e.event_id, alert_id: e.alert_id, alert_type: e.alert_type, code: e.code, name: e.name, preset_id: e.preset_id, threshold: e.threshold,
    current_price: e.price, change_percent: e.change_percent, volume: e.volume, message: e.message, fired_at: new Date(Number(e.fired_at)).toISOString(),
  }));
  const body: WebhookBody = { type: 'alert.fired', timestamp: fired[0]?.fired_at ?? new Date(0).toISOString(), data: { delivery_id: deliveryId, events: fired } };
  return JSON.stringify(body);
}

/** The body of a digest. */
export function digestBody(data: DigestData, ranAt: number): string {
  const body: WebhookBody = { type: 'schedule.digest', timestamp: new Date(ranAt).toISOString(), data };
  return JSON.stringify(body);
}

/** The body of a channel's test message. */
export function testBody(deliveryId: string, channelId: string, now: number): string {
  const body: WebhookBody = { type: 'channel.test', timestamp: new Date(now).toISOString(), data: { delivery_id: deliveryId, channel_id: channelId, message: 'stockscreen test message: this channel works' } };
  return JSON.stringify(body);
}

/** A short subject line (e-mail subject, first line of chat messages). */
export function subjectOf(body: WebhookBody): string {
  switch (body.type) {
    case 'alert.fired': {
      const events = (body.data as { events: FiredEvent[] }).events;
      return events.length === 1 ? `stockscreen alert: ${events[0]!.name ?? events[0]!.code} (${events[0]!.code})` : `stockscreen: ${events.length} alerts`;
    }
    case 'schedule.digest': {
      const d = body.data as DigestData;
      return `stockscreen digest "${d.preset_name}" ${d.trade_date}: ${d.members.length} stocks, ${d.entered.length} in, ${d.left.length} out`;
    }
    default:
      return 'stockscreen test message';
  }
}

/** The text of a delivery for chat and mail receivers, at most `limit` characters. */
export function renderText(body: WebhookBody, limit: number): string {
  const lines: string[] = [];
  switch (body.type) {
    case 'alert.fired': {
      const events = (body.data as { events: FiredEvent[] }).events;
      if (events.length === 1) return fit([`🔔 ${events[0]!.message}`], limit, 0);
      return fit([`🔔 ${events.length} alerts`, ...events.map((e) => `• ${e.message}`)], limit, 1);
    }
    case 'schedule.digest': {
      const d = body.data as DigestData;
      const list = (title: string, members: DigestMember[]) => (members.length ? [title, ...members.map((m) => `• ${m.name} (${m.code})`)] : []);
      lines.push(`📋 ${subjectOf(body).replace(/^stockscreen /, '')}`);
      lines.push(...list(`Entered${d.previous_trade_date ? ` since ${d.previous_trade_date}` : ''}:`, d.entered));
      lines.push(...list(`Left${d.previous_trade_date ? ` since ${d.previous_trade_date}` : ''}:`, d.left));
      lines.push(...list('Members:', d.members));
      return fit(lines, limit, 1);
    }
    default:
      return fit([(body.data as { message: string }).message], limit, 0);
  }
}

/** Join lines within `limit`; past it, keep the first `head` lines and as many more as fit, then say how many were left out. */
function fit(lines: string[], limit: number, head: number): string {
  const all = lines.join('\n');
  if (all.length <= limit) return all;
  const kept: string[] = [];
  let size = 0;
  for (let i = 0; i < lines.length; i++) {
    const more = `… and ${lines.length - i} more`;
    const line = lines[i]!;
    if (size + line.length + 1 + more.length + 1 > limit && i >= head) {
      kept.push(more);
      break;
    }
    kept.push(line.length > limit - more.length - 2 ? `${line.slice(0, limit - more.length - 3)}…` : line);
    size += line.length + 1;
  }
  return kept.join('\n').slice(0, limit);
}
