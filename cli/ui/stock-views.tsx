/**
 * Ink views of the load, stock and screen commands: the live job progress (redrawn in
 * place on the terminal's stderr, so stdout stays for results), and the price chart and
 * market tables rendered once.
 */
import { render, renderToString } from 'ink';
import type { ReactNode } from 'react';
import { stripVTControlCharacters } from 'node:util';
import type { CliOutput } from '../io.js';
import { inkStream } from './ink-stream.js';
import type { ChartModel } from '../services/output/chart.js';
import type { ProgressSink } from '../services/load/job-progress.js';
import type { MarketTableData } from '../services/output/market-format.js';
import type { BacktestProgressSink } from '../services/screening/backtest-progress.js';
import { BacktestProgress } from './components/BacktestProgress.js';
import { JobProgress } from './components/JobProgress.js';
import { MarketTable } from './components/MarketTable.js';
import { PriceChart } from './components/PriceChart.js';

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

/** A backtest sink that keeps one live BacktestProgress view on `out` until closed. */
export function createInkBacktestSink(out: CliOutput, color: boolean): BacktestProgressSink {
  let instance: ReturnType<typeof render> | undefined;
  return {
    update(snapshot) {
      const node = <BacktestProgress snapshot={snapshot} />;
      if (instance) instance.rerender(node);
      else instance = render(node, { stdout: inkStream(out, color), stderr: inkStream(out, color), patchConsole: false, exitOnCtrlC: false });
    },
    async close() {
      // React commits a rerender on a later turn: unmounting at once would leave the frame before the last one on screen.
      await new Promise((resolve) => setTimeout(resolve, 0));
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
