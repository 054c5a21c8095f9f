/**
 * The terminal views the UI layer supplies to services (Ink, see ui/render.tsx): services draw
 * through these and never import the UI, which is loaded only when something is drawn.
 */
import type { CliIO, CliOutput } from '../../io.js';
import type { WsClient } from '../transport/ws-client.js';
import type { ProgressSink } from '../load/job-progress.js';
import type { BacktestProgressSink } from '../screening/backtest-progress.js';
import type { LoadtestProgressSink } from '../loadtest/loadtest-progress.js';
import type { MarketTableData } from './market-format.js';
import type { RenderOptions, Renderers } from './output.js';

/** Tables and records, plus the live and coloured views. */
export interface Views extends Renderers {
  /** The coloured market table of stock lists and screens. */
  marketTable(data: MarketTableData, options: RenderOptions): string;
  /** A job's live progress, redrawn in place on `out` (stderr). */
  jobProgress(out: CliOutput, color: boolean): ProgressSink;
  /** A backtest's live progress (what it is doing, then the bar), redrawn in place on `out` (stderr). */
  backtestProgress(out: CliOutput, color: boolean): BacktestProgressSink;
  /** The live load-test view on `out` (stderr). */
  loadtestProgress(out: CliOutput, color: boolean): LoadtestProgressSink;
  /** The `screen --live` view on the terminal (keys from stdin when it is one). */
  liveScreen(options: LiveScreenViewOptions, io: CliIO): MountedLiveScreen;
}

/** A mounted live view. */
export interface MountedLiveScreen {
  /** Draw the latest state, unmount and wait until Ink restored the terminal; idempotent. */
  close(): Promise<void>;
}

/** Options of the live-screen view. */
export interface LiveScreenViewOptions {
  client: WsClient;
  color: boolean;
  onExit(): void;
}
