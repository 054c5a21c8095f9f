/**
 * Prometheus instruments of the WebSocket gateway (connections,
 * messages, queue depth, rate-limit decisions), registered in the daemon's registry.
 * Gauges are read from the gateway when scraped, so nothing is updated per message
 * except two counters and the latency histogram.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The gateway's instruments. */
export interface WsMetrics {
  messagesSent: Counter;
  framesSent: Counter;
  sendLatency: Histogram;
  clientMessages: Counter<'type'>;
  rateLimitDecisions: Counter<'decision'>;
  closes: Counter<'reason'>;
}

/** Live figures the gauges read at scrape time. */
export interface WsGaugeSource {
  connections(): number;
  subscriptions(): number;
  queuedMessages(): number;
}

/** Register the gateway's instruments in `registry`. */
export function createWsMetrics(registry: Registry, source: WsGaugeSource): WsMetrics {
  const registers = [registry];
  new Gauge({
    name: 'stockscreen_ws_connections',
    help: 'Open WebSocket connections on this instance',
    registers,
    collect() {
      this.set(source.connections());
    },
  });
  new Gauge({
    name: 'stockscreen_ws_subscriptions',
    help: 'Subscriptions held by open connections',
    registers,
    collect() {
      this.set(source.subscriptions());
    },
  });
  new Gauge({
    name: 'stockscreen_ws_queue_depth',
    help: 'Server messages queued for delivery (all connections)',
    registers,
    collect() {
      this.set(source.queuedMessages());
    },
  });
  return {
    messagesSent: new Counter({ name: 'stockscreen_ws_messages_sent_total', help: 'Server messages delivered (inner batch messages counted one by one)', registers }),
    framesSent: new Counter({ name: 'stockscreen_ws_frames_sent_total', help: 'WebSocket frames sent', registers }),
    sendLatency: new Histogram({
      name: 'stockscreen_ws_send_latency_seconds',
      help: 'Oldest message age when its frame is handed to the socket',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    clientMessages: new Counter({ name: 'stockscreen_ws_client_messages_total', help: 'Client messages by type (invalid ones as "invalid")', labelNames: ['type'], registers }),
    rateLimitDecisions: new Counter({
      name: 'stockscreen_ws_rate_limit_decisions_total',
      help: 'Client messages refused by the per-connection rate limit (rejected) and connections closed for abuse (closed)',
      labelNames: ['decision'],
      registers,
    }),
    closes: new Counter({ name: 'stockscreen_ws_closes_total', help: 'Connections closed, by reason', labelNames: ['reason'], registers }),
  };
}
