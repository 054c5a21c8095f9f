/**
 * The live view of `stockscreen loadtest`: the scenario being run (n of total) and its
 * phase, a bar of elapsed over planned seconds, the last second's req/s or msg/s, the
 * connections and the failures so far, then one line per finished scenario.
 */
import { Box, Text } from 'ink';
import { barCells } from '../../services/load/job-progress.js';
import { elapsedText, figuresText, phaseName, type LoadtestView } from '../../services/loadtest/loadtest-progress.js';

/** Props of LoadtestProgress. */
export interface LoadtestProgressProps {
  view: LoadtestView;
  /** Cells of the bar (default 30). */
  barWidth?: number;
}

const STATUS_COLOUR: Record<string, string> = { pass: 'green', fail: 'red', error: 'red', aborted: 'yellow', skipped: 'yellow', info: 'cyan' };
const STATUS_MARK: Record<string, string> = { pass: '✓', fail: '✗', error: '✗', aborted: '■', skipped: '·', info: '•' };

/** Render the view (nothing but the finished lines once the run is over). */
export function LoadtestProgress({ view, barWidth = 30 }: LoadtestProgressProps) {
  const c = view.current;
  const elapsed = c ? elapsedText(c) : null;
  const { filled, empty } = c && c.plannedS > 0 ? barCells(c.elapsedS, c.plannedS, barWidth) : barCells(0, 0, barWidth);
  const figures = c ? figuresText(c) : '';
  return (
    <Box flexDirection="column">
      {view.finished.map((f) => (
        <Text key={f.scenario}>
          <Text color={STATUS_COLOUR[f.status]}>{`${STATUS_MARK[f.status] ?? '•'} ${f.scenario} ${f.status}`}</Text>
          {f.message ? <Text dimColor>{` — ${f.message}`}</Text> : null}
        </Text>
      ))}
      {c ? (
        <Box flexDirection="column">
          <Box columnGap={1}>
            <Text bold>loadtest</Text>
            <Text dimColor>{`${c.index + 1}/${c.total}`}</Text>
            <Text bold>{c.scenario}</Text>
            <Text color="cyan">{c.phase ? phaseName(c.phase) : 'setting up'}</Text>
            {c.detail ? <Text dimColor>{`(${c.detail})`}</Text> : null}
          </Box>
          <Box columnGap={1}>
            <Text>
              <Text color="green">{'█'.repeat(filled)}</Text>
              <Text dimColor>{'░'.repeat(empty)}</Text>
            </Text>
            {elapsed ? <Text>{elapsed}</Text> : null}
          </Box>
          {figures ? <Text color={c.failed !== null && c.failed > 0 ? 'red' : undefined}>{figures}</Text> : null}
        </Box>
      ) : null}
    </Box>
  );
}
