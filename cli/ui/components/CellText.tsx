/** One table or record cell: its text on a single line, coloured by tone. */
import { Text } from 'ink';
import { toCell, type CellInput } from '../../services/output/output.js';

const TONE_COLOR = { good: 'green', bad: 'red', muted: 'gray' } as const;

/** Props of CellText. */
export interface CellTextProps {
  value: CellInput;
}

/** Render a cell; empty cells still take one line so columns stay aligned. */
export function CellText({ value }: CellTextProps) {
  const cell = toCell(value);
  const color = cell.tone ? TONE_COLOR[cell.tone] : undefined;
  return (
    <Text color={color} wrap="truncate">
      {cell.text === '' ? ' ' : cell.text}
    </Text>
  );
}
