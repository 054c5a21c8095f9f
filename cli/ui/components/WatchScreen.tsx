/**
 * The live `watch` screen: connection state and market status on top, the quote table
 * (↑/↓ selects a row), the selected stock's order book and the alerts as they fire.
 * q or Ctrl-C leaves. Colours follow the Korean convention: red up, blue down.
 */
import { Box, Text, useInput } from 'ink';
import { reduceWatch, type WatchState } from '../../services/realtime/watch-state.js';
import { connectionBadge, marketLine, quoteTable } from '../../services/realtime/watch-view.js';
import type { WsClientEvent } from '../../services/transport/ws-client.js';
import { useEventFold, type Subscribe } from '../hooks/use-event-fold.js';
import { useRowSelection } from '../hooks/use-row-selection.js';
import { useTicker } from '../hooks/use-ticker.js';
import { AlertFeed } from './AlertFeed.js';
import { MarketTable } from './MarketTable.js';
import { OrderBook } from './OrderBook.js';

/** Props of WatchScreen. */
export interface WatchScreenProps {
  /** The client's `on` (bound). */
  subscribe: Subscribe<WsClientEvent>;
  initial: WatchState;
  color: boolean;
  loggedIn: boolean;
  /** Keys are read (false when stdin is not a terminal). */
  interactive: boolean;
  onExit(): void;
  /** Most rows shown (the terminal height). */
  maxRows?: number;
  throttleMs?: number;
}

/** Render the screen from the client's events. */
export function WatchScreen({ subscribe, initial, color, loggedIn, interactive, onExit, maxRows = 20, throttleMs }: WatchScreenProps) {
  const state = useEventFold(subscribe, reduceWatch, initial, throttleMs);
  const selected = useRowSelection(state.rows.length, interactive);
  useInput(
    (input, key) => {
      if (input === 'q' || key.escape || (key.ctrl && input === 'c')) onExit();
    },
    { isActive: interactive },
  );
  // Keep the selected row in view when there are more rows than lines.
  const first = Math.max(0, Math.min(selected - maxRows + 1, state.rows.length - maxRows));
  const visible = state.rows.slice(first, first + maxRows);
  const now = useTicker(state.connection.state === 'reconnecting');
  const badge = connectionBadge(state.connection, now);
  const code = state.rows[selected]?.code;
  const markets = marketLine(state.markets);
  return (
    <Box flexDirection="column">
      <Box columnGap={2}>
        <Text bold>stockscreen watch</Text>
        <Text color={color ? (badge.healthy ? 'green' : 'yellow') : undefined}>● {badge.text}</Text>
        <Text dimColor>{markets || 'market status: waiting for the next change'}</Text>
        {state.anomalies.length > 0 ? <Text color={color ? 'yellow' : undefined}>{state.anomalies.length} sequence gap(s)</Text> : null}
      </Box>
      <MarketTable data={quoteTable(visible, 20)} color={color} selected={selected - first} />
      {state.rows.length === 0 ? <Text dimColor>waiting for the first price…</Text> : null}
      <Box marginTop={1} columnGap={4}>
        <OrderBook code={code} book={code ? state.books[code] : undefined} depth={5} color={color} />
        <AlertFeed alerts={state.alerts} max={8} loggedIn={loggedIn} color={color} />
      </Box>
      {state.notices.map((n, i) => (
        <Text key={i} color={color ? 'yellow' : undefined} wrap="truncate">
          {n}
        </Text>
      ))}
      <Text dimColor>↑/↓ select · q quit · red = up, blue = down (Korean convention) · {state.messages} messages</Text>
    </Box>
  );
}
