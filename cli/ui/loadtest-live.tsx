/**
 * The live `loadtest` progress view on the terminal's stderr (stdout stays for the report):
 * each progress event is folded into the view and redrawn in place; closing draws the last
 * state once more and unmounts.
 */
import { render } from 'ink';
import type { ProgressEvent } from '../../loadtest/index.js';
import type { CliOutput } from '../io.js';
import { EMPTY_LOADTEST_VIEW, reduceLoadtestView, type LoadtestProgressSink, type LoadtestView } from '../services/loadtest-progress.js';
import { LoadtestProgress } from './components/LoadtestProgress.js';

/** Colour escape sequences (SGR); cursor movement is kept so the view still redraws in place. */
const SGR = /\u001b\[[0-9;]*m/g;

/** Ink's view of an output: the calls it makes, with colour removed when it is off. */
function inkStream(out: CliOutput, color: boolean): NodeJS.WriteStream {
  const target = out as CliOutput & { on?(event: string, l: (...args: unknown[]) => void): unknown; off?(event: string, l: (...args: unknown[]) => void): unknown };
  const stream = {
    write: (chunk: string) => out.write(color ? chunk : chunk.replace(SGR, '')),
    get columns() {
      return out.columns ?? 80;
    },
    rows: 24,
    isTTY: true,
    // Real streams get Ink's resize listener; test fakes have no events.
    on(event: string, l: (...args: unknown[]) => void) {
      target.on?.call(out, event, l);
      return stream;
    },
    off(event: string, l: (...args: unknown[]) => void) {
      target.off?.call(out, event, l);
      return stream;
    },
  };
  return stream as unknown as NodeJS.WriteStream;
}

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
