/**
 * The TTY renderers (Ink views rendered to a string for one-shot output) and the
 * interactive Ink prompter. Colour is stripped when the user turned it off.
 */
import { render, renderToString } from 'ink';
import { stripVTControlCharacters } from 'node:util';
import type { ReactNode } from 'react';
import { CliError, LOCAL_CODES } from '../services/session/errors.js';
import type { RenderOptions } from '../services/output/output.js';
import type { Views } from '../services/output/views.js';
import type { Prompter } from '../services/session/prompt.js';
import { KeyValue } from './components/KeyValue.js';
import { Prompt } from './components/Prompt.js';
import { Table } from './components/Table.js';
import { createInkLoadtestSink } from './loadtest-live.js';
import { mountLiveScreenView } from './live.js';
import { createInkBacktestSink, createInkProgressSink, renderMarketTable } from './stock-views.js';

function toText(node: ReactNode, options: RenderOptions): string {
  const text = renderToString(node, { columns: options.columns });
  return options.color ? text : stripVTControlCharacters(text);
}

/** Renderers backed by the Ink components. */
export const inkRenderers: Views = {
  table: (data, options) => toText(<Table headers={data.headers} rows={data.rows} />, options),
  record: (data, options) => toText(<KeyValue fields={data.fields} />, options),
  marketTable: renderMarketTable,
  jobProgress: createInkProgressSink,
  backtestProgress: createInkBacktestSink,
  loadtestProgress: createInkLoadtestSink,
  liveScreen: mountLiveScreenView,
};

/** Terminal streams an interactive prompt needs (raw-mode stdin). */
export interface PromptStreams {
  stdin: NodeJS.ReadStream;
  /** Where the prompt is drawn: stderr, so stdout stays for results. */
  output: NodeJS.WriteStream;
}

/**
 * A prompter that draws Ink prompts on the real terminal. While held (see Prompter.hold), the
 * terminal stays in raw mode (no echo) between prompts: Ink turns raw mode off when a prompt
 * unmounts, so Ink gets a view of stdin whose setRawMode(false) waits for the release.
 */
export function createInkPrompter(streams: PromptStreams = { stdin: process.stdin, output: process.stderr }): Prompter {
  let holds = 0;
  const stdin = new Proxy(streams.stdin, {
    get(target, key) {
      if (key === 'setRawMode') {
        return (mode: boolean) => {
          if (mode || holds === 0) target.setRawMode(mode);
          return stdin;
        };
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    hold() {
      if (!streams.stdin.isTTY) return () => undefined;
      holds += 1;
      streams.stdin.setRawMode(true);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds -= 1;
        if (holds === 0) streams.stdin.setRawMode(false);
      };
    },
    ask(question) {
      return new Promise<string>((resolve, reject) => {
        let answer: string | undefined;
        const instance = render(
          <Prompt
            label={question.label}
            secret={question.secret}
            onSubmit={(value) => {
              answer = value;
              instance.unmount();
            }}
            onCancel={() => instance.unmount()}
          />,
          { stdin, stdout: streams.output, stderr: streams.output, exitOnCtrlC: false, patchConsole: false },
        );
        instance.waitUntilExit().then(() => {
          if (answer === undefined) reject(new CliError({ code: LOCAL_CODES.CANCELLED, message: 'cancelled' }));
          else resolve(answer);
        }, reject);
      });
    },
  };
}
