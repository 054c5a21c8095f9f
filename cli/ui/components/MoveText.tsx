/** A market cell's text, coloured by its movement (Korean convention: red up, blue down). */
import { Text } from 'ink';
import { MOVE_COLOR, type MarketCell } from '../../services/output/market-format.js';

/** Props of MoveText. */
export interface MoveTextProps {
  cell: MarketCell;
  /** False: no colour (--no-color, NO_COLOR). */
  color: boolean;
  inverse?: boolean;
  bold?: boolean;
}

/** Render one cell on one truncated line (empty cells keep their line). */
export function MoveText({ cell, color, inverse = false, bold = false }: MoveTextProps) {
  return (
    <Text color={color && cell.move ? MOVE_COLOR[cell.move] : undefined} dimColor={cell.muted === true} inverse={inverse} bold={bold} wrap="truncate">
      {cell.text === '' ? ' ' : cell.text}
    </Text>
  );
}
