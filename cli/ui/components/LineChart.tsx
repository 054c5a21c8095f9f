/**
 * A braille line chart with the highest and lowest value labelled on the left and the
 * first and last x label under it.
 */
import { Box, Text } from 'ink';
import { brailleChart, fit } from '../../services/output/charts.js';

/** Props of LineChart. */
export interface LineChartProps {
  values: readonly number[];
  /** Chart size in characters (without the labels). */
  width: number;
  height: number;
  /** Labels under the first and last point (e.g. dates). */
  xLabels?: [string, string];
  formatY?: (n: number) => string;
  /** Colour of the line (undefined: terminal default). */
  lineColor?: string;
}

/** Render the chart; nothing for an empty series. */
export function LineChart({ values, width, height, xLabels, formatY = String, lineColor }: LineChartProps) {
  const rows = brailleChart(values, { width, height });
  if (rows.length === 0) return null;
  const shown = fit(values, width * 2);
  const max = formatY(Math.max(...shown));
  const min = formatY(Math.min(...shown));
  const gutter = Math.max(max.length, min.length);
  const label = (i: number) => (i === 0 ? max : i === rows.length - 1 ? min : '').padStart(gutter);
  const chartWidth = rows[0]!.length;
  return (
    <Box flexDirection="column">
      {rows.map((row, i) => (
        <Text key={i}>
          <Text dimColor>{label(i)} ┤</Text>
          <Text color={lineColor}>{row}</Text>
        </Text>
      ))}
      {xLabels ? (
        <Text dimColor>
          {' '.repeat(gutter + 2)}
          {xLabels[0]}
          {' '.repeat(Math.max(1, chartWidth - xLabels[0].length - xLabels[1].length))}
          {xLabels[1]}
        </Text>
      ) : null}
    </Box>
  );
}
