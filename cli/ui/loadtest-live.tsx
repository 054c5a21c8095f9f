/**
 * The live `loadtest` progress view on the terminal's stderr (stdout stays for the report):
 * each progress event is folded into the view and redrawn in place; closing draws the last
 * state once more and unmounts.
 */
import { render } from 'ink';
import type { ProgressEvent } from '../../loadtest/index.js';
import type { CliOutput } from '../io.js';
import { inkStream } from './ink-stream.js';
import { EMPTY_LOADTEST_VIEW, reduceLoadtestView, type LoadtestProgressSink, type LoadtestView } from '../services/loadtest/loadtest-progress.js';
import { LoadtestProgress } from './components/LoadtestProgress.js';

/** Mount the view on `out` (a terminal); it is drawn from the first event on. */
export function createInkLoadtestSink(out: CliOutput, color: boolean): LoadtestProgressSink {
  let view: LoadtestView = EMPTY_LOADTEST_VIEW;
  let instance: ReturnType<typeof render> | undefined;
  let closing: Promise<void> | undefined;
  const node = () => <LoadtestProgress view={view} />;
  return {
    update(event: ProgressEvent) {
      if (closing) return;
      view = reduceLoadtestView(view, event);
      if (instance) instance.rerender(node());
      else instance = render(node(), { stdout: inkStream(out, color), stderr: inkStream(out, color), patchConsole: false, exitOnCtrlC: false });
    },
    close() {
      closing ??= (async () => {
        if (!instance) return;
        instance.rerender(node());
        instance.unmount();
        await instance.waitUntilExit().catch(() => undefined);
      })();
      return closing;
    },
  };
}
