/** A block chart of closes with the high and low on the left and the first and last date underneath. */
import { Box, Text } from 'ink';
import type { ChartModel } from '../../services/output/chart.js';
import { MOVE_COLOR, movement } from '../../services/output/market-format.js';
import { formatKrw, formatSignedPercent } from '../../services/output/number-format.js';

/** Props of PriceChart. */
export interface PriceChartProps {
  model: ChartModel;
}

/** Render the chart: axis labels, the block rows (red when the series rose, blue when it fell: the Korean convention), the date range. */
export function PriceChart({ model }: PriceChartProps) {
  const high = formatKrw(model.max);
  const low = formatKrw(model.min);
  const axis = Math.max(high.length, low.length);
  const color = MOVE_COLOR[movement(model.last.value - model.first.value)];
  const width = model.rows[0]?.length ?? 0;
  const dates = `${model.first.date} `.padEnd(Math.max(0, width - model.last.date.length)) + model.last.date;
  return (
    <Box flexDirection="column">
      {model.rows.map((row, i) => (
        <Box key={i}>
          <Text dimColor>{(i === 0 ? high : i === model.rows.length - 1 ? low : '').padStart(axis)} │</Text>
          <Text color={color}>{row}</Text>
        </Box>
      ))}
      <Text dimColor>{`${' '.repeat(axis)}  ${dates}`}</Text>
      <Text>
        {`${' '.repeat(axis)}  ${formatKrw(model.first.value)} → ${formatKrw(model.last.value)} `}
        <Text color={color}>({formatSignedPercent(model.changePercent)})</Text>
      </Text>
    </Box>
  );
}
