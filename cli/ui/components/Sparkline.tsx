/** A one-line trend of recent values, coloured by the move from the first to the last value. */
import { Text } from 'ink';
import { sparkline } from '../../services/output/charts.js';
import { MOVE_COLOR, movement } from '../../services/output/market-format.js';

/** Props of Sparkline. */
export interface SparklineProps {
  values: readonly number[];
  width: number;
  color: boolean;
  /** A fixed colour instead of the movement colour (for figures that are not prices). */
  tint?: string;
}

/** Render the last `width` values as bars (`▁▂▃▄▅▆▇█`). */
export function Sparkline({ values, width, color, tint }: SparklineProps) {
  const shown = values.slice(-width);
  const move = shown.length > 1 ? movement(shown[shown.length - 1]! - shown[0]!) : 'flat';
  return (
    <Text color={color ? (tint ?? MOVE_COLOR[move]) : undefined} wrap="truncate">
      {sparkline(shown, width) || ' '}
    </Text>
  );
}
