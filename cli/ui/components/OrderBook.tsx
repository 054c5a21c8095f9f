/** The order book of one stock: asks above (blue), bids below (red), best prices in the middle. */
import { Box, Text } from 'ink';
import { MOVE_COLOR } from '../../services/output/market-format.js';
import type { WatchBook } from '../../services/realtime/watch-state.js';
import { bookLines } from '../../services/realtime/watch-view.js';

/** Props of OrderBook. */
export interface OrderBookProps {
  code: string | undefined;
  book: WatchBook | undefined;
  depth: number;
  color: boolean;
}

/** Render up to `depth` levels per side, or a hint while none has arrived. */
export function OrderBook({ code, book, depth, color }: OrderBookProps) {
  const lines = bookLines(book, depth);
  return (
    <Box flexDirection="column">
      <Text bold>Order book {code ?? ''}</Text>
      {lines.length === 0 ? <Text dimColor>no order book yet</Text> : null}
      {lines.map((l, i) => (
        <Text key={i} color={color ? MOVE_COLOR[l.move] : undefined}>
          {l.side === 'ask' ? 'ASK' : 'BID'} {l.price.padStart(10)} {l.quantity.padStart(10)}
        </Text>
      ))}
    </Box>
  );
}
