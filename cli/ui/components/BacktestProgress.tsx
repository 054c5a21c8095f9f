/**
 * A backtest while it runs: what it is doing from the first second (queued, reading the history,
 * building series), then a bar of rebalance dates screened; the seconds since it was started.
 */
import { Box, Text } from 'ink';
import { backtestStepHint, backtestStepLabel, type BacktestProgressSnapshot } from '../../services/screening/backtest-progress.js';

/** Props of BacktestProgress. */
export interface BacktestProgressProps {
  snapshot: BacktestProgressSnapshot;
  /** Cells of the bar (default 20: the line fits 80 columns). */
  barWidth?: number;
}

/** Render `backtest 1a2b3c4d reading history ░░░░ 0/26 rebalances 3 s`, then why the step takes a while. */
export function BacktestProgress({ snapshot, barWidth = 20 }: BacktestProgressProps) {
  const { run, elapsedS } = snapshot;
  const label = backtestStepLabel(run);
  const hint = backtestStepHint(run);
  const share = label === 'done' ? 1 : run.total > 0 ? Math.min(1, run.done / run.total) : 0;
  const filled = Math.floor(share * barWidth);
  return (
    <Box flexDirection="column">
      <Box columnGap={1}>
        <Text bold>backtest {run.id.slice(0, 8)}</Text>
        <Text color={label === 'failed' || label === 'cancelled' ? 'red' : label === 'done' ? 'green' : 'cyan'}>{label.padEnd(15)}</Text>
        <Text>
          <Text color="green">{'█'.repeat(filled)}</Text>
          <Text dimColor>{'░'.repeat(barWidth - filled)}</Text>
        </Text>
        {run.total > 0 ? <Text>{`${run.done}/${run.total} rebalances`}</Text> : null}
        <Text dimColor>{`${Math.floor(elapsedS)} s`}</Text>
      </Box>
      {hint ? <Text dimColor>{hint}</Text> : null}
    </Box>
  );
}
