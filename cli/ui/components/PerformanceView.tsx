/**
 * `portfolio perf` on a terminal: headline figures, period returns, the daily value
 * chart (braille), allocation by sector and the best and worst holdings.
 */
import { Box, Text } from 'ink';
import { compact, pct, type MarketTableData } from '../../services/market-format.js';
import type { Performance, RankedHolding } from '../../services/portfolio.js';
import { allocationView, performanceSummary, returnsView } from '../../services/portfolio-rows.js';
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

function ranked(title: string, list: RankedHolding[]): MarketTableData {
  return {
    headers: [title, 'P&L %'],
    rows: list.slice(0, 3).map((h) => [{ text: `${h.code} ${h.name ?? ''}` }, { text: pct(h.unrealized_pnl_percent), move: h.unrealized_pnl_percent > 0 ? 'up' : h.unrealized_pnl_percent < 0 ? 'down' : 'flat' }]),
    right: [false, true],
  };
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
        {p.window.from ? <Text dimColor> (history {p.window.from} – {p.window.to}, {p.window.days} days)</Text> : null}
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
      <MarketTable data={returnsView(p)} color={color} />
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
        <Box columnGap={4}>
          <MarketTable data={allocationView(p)} color={color} />
          <MarketTable data={ranked('BEST', p.best)} color={color} />
          <MarketTable data={ranked('WORST', p.worst)} color={color} />
        </Box>
      ) : (
        <Text dimColor>No holdings: nothing to allocate.</Text>
      )}
    </Box>
  );
}
