/** Alerts as they fire, newest first. */
import { Box, Text } from 'ink';
import type { WatchAlert } from '../../services/realtime/watch-state.js';
import { alertLine } from '../../services/realtime/watch-view.js';

/** Props of AlertFeed. */
export interface AlertFeedProps {
  alerts: readonly WatchAlert[];
  max: number;
  /** Logged in: alerts can arrive (anonymous watchers get none). */
  loggedIn: boolean;
  color: boolean;
}

/** Render the latest `max` alerts. */
export function AlertFeed({ alerts, max, loggedIn, color }: AlertFeedProps) {
  return (
    <Box flexDirection="column">
      <Text bold>Alerts</Text>
      {alerts.length === 0 ? <Text dimColor>{loggedIn ? 'none fired yet' : 'log in to receive your alerts'}</Text> : null}
      {alerts.slice(0, max).map((a, i) => (
        <Text key={i} color={color ? 'yellow' : undefined} wrap="truncate">
          {alertLine(a)}
        </Text>
      ))}
    </Box>
  );
}
