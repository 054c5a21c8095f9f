/**
 * A table laid out column by column: each column is as wide as its widest cell (Ink
 * measures wide characters such as Hangul), and every cell is one truncated line so
 * rows stay aligned.
 */
import { Box, Text } from 'ink';
import type { CellInput } from '../../services/output/output.js';
import { CellText } from './CellText.js';

/** Props of Table. */
export interface TableProps {
  headers: string[];
  rows: CellInput[][];
}

/** Render headers (bold) over the rows. */
export function Table({ headers, rows }: TableProps) {
  return (
    <Box flexDirection="row" columnGap={2}>
      {headers.map((header, col) => (
        <Box key={col} flexDirection="column" flexShrink={col === headers.length - 1 ? 1 : 0}>
          <Text bold wrap="truncate">
            {header}
          </Text>
          {rows.map((row, r) => (
            <CellText key={r} value={row[col]} />
          ))}
        </Box>
      ))}
    </Box>
  );
}
