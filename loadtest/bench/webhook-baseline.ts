/**
 * The delivery bench's baseline, in a child process of its own: the same outbound I/O as the
 * daemon's webhook deliveries — a JSON body signed with the Standard Webhooks reference package,
 * POSTed with undici at the same concurrency to the same local receiver — with nothing else
 * (no queue, no database). The parent sends `{url, count, concurrency}`; the child answers
 * `{elapsedMs, cpuMs}` and exits.
 */
import { request } from 'undici';
import { signWebhook, newWebhookSecret } from '../../daemon/notify/signing.js';

/** The start message. */
export interface BaselineRun {
  url: string;
  count: number;
  concurrency: number;
}

process.once('message', (raw: unknown) => {
  const run = raw as BaselineRun;
  const secret = newWebhookSecret();
  const started = Date.now();
  const cpu = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next < run.count) {
      const i = next++;
      const body = JSON.stringify({ type: 'alert.fired', timestamp: new Date().toISOString(), data: { delivery_id: `b-${i}`, events: [{ event_id: `e-${i}`, code: '005930', message: 'baseline' }] } });
      const res = await request(`${run.url}/baseline`, { method: 'POST', headers: { 'content-type': 'application/json', ...signWebhook(secret, `b-${i}`, Date.now(), body) }, body });
      await res.body.text();
    }
  };
  void Promise.all(Array.from({ length: run.concurrency }, worker)).then(() => {
    const used = process.cpuUsage(cpu);
    process.send?.({ elapsedMs: Date.now() - started, cpuMs: (used.user + used.system) / 1000 });
    process.disconnect?.();
  });
});
