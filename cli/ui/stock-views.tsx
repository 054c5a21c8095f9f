/**
 * Ink views of the load, stock and screen commands: the live job progress (redrawn in
 * place on the terminal's stderr, so stdout stays for results), and the price chart and
 * market tables rendered once.
 */
import { render, renderToString } from 'ink';
import type { ReactNode } from 'react';
import { stripVTControlCharacters } from 'node:util';
import type { CliOutput } from '../io.js';
import type { ChartModel } from '../services/chart.js';
import type { ProgressSink } from '../services/job-progress.js';
import type { MarketTableData } from '../services/market-format.js';
import { JobProgress } from './components/JobProgress.js';
import { MarketTable } from './components/MarketTable.js';
import { PriceChart } from './components/PriceChart.js';

/** Colour escape sequences (SGR); cursor movement is kept so a live view still redraws in place. */
const SGR = /\u001b\[[0-9;]*m/g;

/** Ink's view of an output: the methods it calls, with colour removed when it is off. */
function inkStream(out: CliOutput, color: boolean): NodeJS.WriteStream {
  // Real streams get Ink's resize listener; test fakes have no events.
  const target = out as CliOutput & { on?(event: string, listener: (...args: unknown[]) => void): unknown; off?(event: string, listener: (...args: unknown[]) => void): unknown };
  const stream = {
    write: (chunk: string) => out.write(color ? chunk : chunk.replace(SGR, '')),
    get columns() {
      return out.columns ?? 80;
    },
    rows: 24,
    isTTY: true,
    on(event: string, listener: (...args: unknown[]) => void) {
      target.on?.call(out, event, listener);
      return stream;
    },
    off(event: string, listener: (...args: unknown[]) => void) {
      target.off?.call(out, event, listener);
      return stream;
    },
  };
  return stream as unknown as NodeJS.WriteStream;
}

/** A progress sink that keeps one live JobProgress view on `out` until closed. */
export function createInkProgressSink(out: CliOutput, color: boolean): ProgressSink {
  let instance: ReturnType<typeof render> | undefined;
  return {
    update(snapshot) {
      const node = <JobProgress snapshot={snapshot} />;
      if (instance) instance.rerender(node);
      else instance = render(node, { stdout: inkStream(out, color), stderr: inkStream(out, color), patchConsole: false, exitOnCtrlC: false });
    },
    close() {
      instance?.unmount();
      instance = undefined;
    },
  };
}

/** Options of the one-shot renderers. */
export interface ViewOptions {
  color: boolean;
  columns: number;
}

function toText(node: ReactNode, options: ViewOptions): string {
  const text = renderToString(node, { columns: options.columns });
  return options.color ? text : stripVTControlCharacters(text);
}

/** The price chart as text, `columns` wide at most. */
export function renderPriceChart(model: ChartModel, options: ViewOptions): string {
  return toText(<PriceChart model={model} />, options);
}

/** A market table (numbers right-aligned, rises red, falls blue) as text. */
export function renderMarketTable(data: MarketTableData, options: ViewOptions): string {
  return toText(<MarketTable data={data} color={options.color} />, options);
}
