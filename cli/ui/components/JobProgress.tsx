/** A running job: step, a bar for done/total, rows loaded, rejected rows, the rate and the current file. */
import { Box, Text } from 'ink';
import { barCells, countText, phaseLabel, type ProgressSnapshot } from '../../services/load/job-progress.js';
import { groupThousands } from '../../services/output/number-format.js';

/** Props of JobProgress. */
export interface JobProgressProps {
  snapshot: ProgressSnapshot;
  /** Cells of the bar (default 30). */
  barWidth?: number;
}

/** Render two lines: `job 7 loading [█████░░░░░] 3/10 files  file`, then the row counts and rate. */
export function JobProgress({ snapshot, barWidth = 30 }: JobProgressProps) {
  const p = snapshot.progress;
  const count = countText(p);
  const finished = p?.phase === 'done' || snapshot.state === 'completed';
  // Between counting phases (planning, index) the bar is empty; when done it is full.
  const { filled, empty } = finished ? barCells(1, 1, barWidth) : count ? barCells(p!.done, p!.total, barWidth) : barCells(0, 0, barWidth);
  const label = phaseLabel(snapshot.state, p);
  const rows = p && (p.rows_ok > 0 || p.rows_rejected > 0);
  return (
    <Box flexDirection="column">
      <Box columnGap={1}>
        <Text bold>job {snapshot.id}</Text>
        <Text color={label === 'failed' ? 'red' : label === 'done' ? 'green' : 'cyan'}>{label.padEnd(10)}</Text>
        <Text>
          <Text color="green">{'█'.repeat(filled)}</Text>
          <Text dimColor>{'░'.repeat(empty)}</Text>
        </Text>
        {count ? <Text>{count}</Text> : null}
        {p?.file ? <Text dimColor wrap="truncate-start">{p.file}</Text> : null}
      </Box>
      {rows ? (
        <Box columnGap={1}>
          <Text>{`${groupThousands(p.rows_ok)} rows ok`}</Text>
          <Text color={p.rows_rejected > 0 ? 'red' : undefined} dimColor={p.rows_rejected === 0}>{`· ${groupThousands(p.rows_rejected)} rejected`}</Text>
          {snapshot.rowsPerSecond !== null ? <Text dimColor>{`· ${groupThousands(snapshot.rowsPerSecond)} rows/s`}</Text> : null}
        </Box>
      ) : null}
      {snapshot.retryReason ? <Text color="yellow">{`retrying after: ${snapshot.retryReason}`}</Text> : null}
      {snapshot.busy ? <Text color="yellow">{snapshot.busy}</Text> : null}
    </Box>
  );
}
