/** The output stream Ink draws on, built over the CLI's output (a terminal or a test fake). */
import type { CliOutput } from '../io.js';

/** Colour escape sequences (SGR); cursor movement is kept so a live view still redraws in place. */
const SGR = /\u001b\[[0-9;]*m/g;

type Listener = (...args: unknown[]) => void;

/** Ink's view of an output: the methods it calls, with colour removed when it is off. */
export function inkStream(out: CliOutput, color: boolean): NodeJS.WriteStream {
  // Real streams get Ink's resize listener; test fakes have no events.
  const target = out as CliOutput & { on?(event: string, listener: Listener): unknown; off?(event: string, listener: Listener): unknown };
  const stream = {
    write: (chunk: string) => out.write(color ? chunk : chunk.replace(SGR, '')),
    get columns() {
      return out.columns ?? 80;
    },
    rows: 24,
    isTTY: true,
    on(event: string, listener: Listener) {
      target.on?.call(out, event, listener);
      return stream;
    },
    off(event: string, listener: Listener) {
      target.off?.call(out, event, listener);
      return stream;
    },
  };
  return stream as unknown as NodeJS.WriteStream;
}
