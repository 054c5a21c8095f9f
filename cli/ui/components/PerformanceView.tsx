/**
 * `portfolio perf` on a terminal: headline figures, period returns, the daily value
 * chart (braille), allocation by sector and the best and worst holdings.
 */
import { Box, Text } from 'ink';
import type { Performance } from '../../../daemon/contract/portfolio.js';
import { compact } from '../../services/output/market-format.js';
import { allocationView, performanceSummary, rankedView, returnsNote, returnsView } from '../../services/portfolio/portfolio-rows.js';
import { LineChart } from './LineChart.js';
import { MarketTable } from './MarketTable.js';
import { MoveText } from './MoveText.js';

/** Props of PerformanceView. */
export interface PerformanceViewProps {
  performance: Performance;
  color: boolean;
  /** Terminal width, for the chart. */
  columns: number;
}

/** Render the performance report. */
export function PerformanceView({ performance: p, color, columns }: PerformanceViewProps) {
  const summary = performanceSummary(p);
  const series = p.series ?? [];
  const width = Math.max(20, Math.min(120, columns - 12));
  return (
    <Box flexDirection="column" rowGap={1}>
      <Text bold>
        Portfolio performance{p.as_of ? ` as of ${p.as_of}` : ''}
        {p.window.from ? <Text dimColor> (history {p.window.from} – {p.window.to}, {p.window.days} daily returns)</Text> : null}
      </Text>
      <Box columnGap={2}>
        <Box flexDirection="column">
          {summary.map(([label]) => (
            <Text key={label} dimColor>
              {label}
            </Text>
          ))}
        </Box>
        <Box flexDirection="column">
          {summary.map(([label, cell]) => (
            <MoveText key={label} cell={cell} color={color} />
          ))}
        </Box>
      </Box>
      <Box flexDirection="column">
        <MarketTable data={returnsView(p)} color={color} />
        {returnsNote(p) ? <Text dimColor>{returnsNote(p)}</Text> : null}
      </Box>
      {series.length > 1 ? (
        <Box flexDirection="column">
          <Text bold>Value (KRW)</Text>
          <LineChart
            values={series.map((d) => d.value)}
            width={width}
            height={8}
            xLabels={[series[0]!.date, series[series.length - 1]!.date]}
            formatY={compact}
            lineColor={color ? 'cyan' : undefined}
          />
        </Box>
      ) : null}
      {p.allocation.by_sector.length > 0 ? (
        <Box flexDirection="column" rowGap={1}>
          <MarketTable data={allocationView(p)} color={color} />
          <MarketTable data={rankedView(p)} color={color} />
        </Box>
      ) : (
        <Text dimColor>No holdings: nothing to allocate.</Text>
      )}
    </Box>
  );
}
