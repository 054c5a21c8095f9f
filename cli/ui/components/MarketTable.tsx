/**
 * A table of market cells laid out column by column (each column as wide as its widest
 * cell), numeric columns right-aligned, gains red and losses blue, and an optional
 * selected row shown in inverse video.
 */
import { Box, Text } from 'ink';
import type { MarketTableData } from '../../services/output/market-format.js';
import { MoveText } from './MoveText.js';

/** Props of MarketTable. */
export interface MarketTableProps {
  data: MarketTableData;
  color: boolean;
  /** Index of the highlighted row. */
  selected?: number;
}

/** Render headers (bold) over the rows. */
export function MarketTable({ data, color, selected }: MarketTableProps) {
  return (
    <Box flexDirection="row" columnGap={2}>
      {data.headers.map((header, col) => (
        <Box key={col} flexDirection="column" flexShrink={0} alignItems={data.right?.[col] ? 'flex-end' : 'flex-start'}>
          <Text bold wrap="truncate">
            {header}
          </Text>
          {data.rows.map((row, r) => (
            <MoveText key={r} cell={row[col] ?? { text: '' }} color={color} inverse={r === selected} />
          ))}
        </Box>
      ))}
    </Box>
  );
}
