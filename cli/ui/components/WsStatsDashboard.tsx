/**
 * The live `ws-stats --watch` dashboard: connections, subscriptions, messages/s and
 * memory with their trends as sparklines, plus the gateway's settings and send latency.
 */
import { Box, Text, useInput } from 'ink';
import { bytes, num } from '../../services/output/market-format.js';
import { EMPTY_STATS_VIEW, reduceStatsView, type StatsEvent } from '../../services/realtime/ws-stats.js';
import { useEventFold, type Subscribe } from '../hooks/use-event-fold.js';
import { Sparkline } from './Sparkline.js';

/** Props of WsStatsDashboard. */
export interface WsStatsDashboardProps {
  subscribe: Subscribe<StatsEvent>;
  url: string;
  intervalLabel: string;
  color: boolean;
  interactive: boolean;
  onExit(): void;
  trendWidth?: number;
}

/** Render the dashboard from poll results. */
export function WsStatsDashboard({ subscribe, url, intervalLabel, color, interactive, onExit, trendWidth = 40 }: WsStatsDashboardProps) {
  const view = useEventFold(subscribe, (v, e: StatsEvent) => reduceStatsView(v, e, trendWidth), EMPTY_STATS_VIEW, 0);
  useInput(
    (input, key) => {
      if (input === 'q' || key.escape || (key.ctrl && input === 'c')) onExit();
    },
    { isActive: interactive },
  );
  const s = view.latest;
  const lines: [string, string, number[]][] = s
    ? [
        ['connections', num(s.active_connections), view.history.connections],
        ['subscriptions', `${num(s.total_subscriptions)}  (stock ${num(s.subscriptions_by_type.stock)} · market ${num(s.subscriptions_by_type.market)} · sector ${num(s.subscriptions_by_type.sector)})`, view.history.subscriptions],
        ['messages/s', num(s.messages_per_second ?? null, 1), view.history.messagesPerSecond],
        ['rss', bytes(s.memory?.rss), view.history.rss],
        ['heap used', bytes(s.memory?.heap_used), view.history.heapUsed],
      ]
    : [];
  const latency = s?.send_latency_ms;
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>ws-stats</Text>
        <Text dimColor>
          {' '}
          · {url} · every {intervalLabel}
          {view.at ? ` · updated ${view.at.toISOString().slice(11, 19)}Z` : ' · waiting for the first sample'}
        </Text>
      </Text>
      <Box columnGap={2}>
        <Box flexDirection="column">
          {lines.map(([label]) => (
            <Text key={label} dimColor>
              {label}
            </Text>
          ))}
        </Box>
        <Box flexDirection="column">
          {lines.map(([label, value]) => (
            <Text key={label} wrap="truncate">
              {value}
            </Text>
          ))}
        </Box>
        <Box flexDirection="column">
          {lines.map(([label, , trend]) => (
            <Sparkline key={label} values={trend} width={trendWidth} color={color} tint="cyan" />
          ))}
        </Box>
      </Box>
      {s ? (
        <Text dimColor wrap="truncate">
          messages sent {num(s.messages_sent)} · queued {num(s.queued_messages)} · saved sessions {s.saved_sessions === null ? 'unknown' : num(s.saved_sessions)} · batching{' '}
          {s.batching_enabled ? `${s.batch_interval_ms} ms` : 'off'} · send p50/p99 {latency?.p50 ?? '–'}/{latency?.p99 ?? '–'} ms · {s.bytes_per_connection === null || s.bytes_per_connection === undefined ? '—' : bytes(s.bytes_per_connection)} per connection
        </Text>
      ) : null}
      {view.error ? <Text color={color ? 'yellow' : undefined}>last poll failed: {view.error}</Text> : null}
      <Text dimColor>q quit</Text>
    </Box>
  );
}
