/** A delivery log entry as the API shows it (times in ISO, the message's text rendered for reading). */
import type { Delivery, WebhookBody } from '../contract/notify.js';
import type { DeliveryEntry } from '../store/deliveries-repo.js';
import { TEXT_LIMITS, renderText } from './messages.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The wire shape of a delivery. */
export function deliveryView(d: DeliveryEntry): Delivery {
  let text: string | null = null;
  if (d.body) {
    try {
      text = renderText(JSON.parse(d.body) as WebhookBody, TEXT_LIMITS[d.channel_type]);
    } catch {
      text = null;
    }
  }
  return {
    id: d.id, channel_id: d.channel_id, channel_type: d.channel_type, kind: d.kind, status: d.status,
    alert_ids: d.alert_ids, event_ids: d.event_ids, schedule_id: d.schedule_id, text,
    attempts: d.attempts.map((a) => ({ n: Number(a.n), at: iso(a.at)!, status_code: a.status_code === null ? null : Number(a.status_code), error: a.error, duration_ms: Number(a.duration_ms) })),
    next_attempt_at: d.status === 'pending' || d.status === 'retrying' || d.status === 'grouping' ? iso(d.status === 'grouping' ? d.window_ends_at : d.next_attempt_at) : null,
    created_at: iso(d.created_at)!, delivered_at: iso(d.delivered_at), last_error: d.last_error,
  };
}
