/**
 * Loads that would surprise, refused before they run: real files over the generated sample
 * market, the sample market over real files, and a sample market over the sample market (which
 * would merge the new one into the old). Each refusal says what would happen and which flag does
 * what was most likely meant. The job route checks before anything is enqueued or uploaded; the
 * processor checks again inside the load's transaction (another load may have run in between).
 */
import { SAMPLE_UNIVERSE_SIZE } from '../../loaders/sample-market.js';
import type { MarketContent } from '../store/market-meta-repo.js';
import type { JobRequest } from './types.js';

/** What the market tables hold, as GET /admin/market answers it. */
export interface MarketState {
  content: MarketContent;
  /** Stocks stored. */
  stocks: number;
}

/** A refused load: the reason, and the request flag that does what was meant (if any). */
export interface MixingProblem {
  message: string;
  /** The job request field (and CLI flag) that would let this load run as meant; null when none does. */
  flag: { field: 'replace_sample' | 'replace'; cli: '--replace-sample' | '--replace' } | null;
}

const n = (x: number): string => x.toLocaleString('en-US');

/** The problem with running `request` over a market in `state`, or null when it may run. */
export function mixingProblem(request: JobRequest, state: MarketState): MixingProblem | null {
  if (request.type === 'load-files') {
    if (state.content !== 'sample' || request.replace_sample) return null;
    return {
      message: `the database holds the generated sample market (${n(state.stocks)} stocks): loading real files would mix them with it. `
        + 'Load with --replace-sample (replace_sample: true) to remove the sample market in the same transaction',
      flag: { field: 'replace_sample', cli: '--replace-sample' },
    };
  }
  if (request.type !== 'load-sample') return null;
  if (state.content === 'files') {
    return {
      message: `the database holds loaded market files (${n(state.stocks)} stocks): the sample market would mix with them (use a fresh data directory or database)`,
      flag: null,
    };
  }
  if (state.content !== 'sample' || request.replace) return null;
  const wanted = request.stocks ?? SAMPLE_UNIVERSE_SIZE;
  return {
    message: `the database already holds the sample market (${n(state.stocks)} stocks): loading the sample market again (${n(wanted)} stocks) `
      + `would merge into it — its largest ${n(Math.min(wanted, state.stocks))} stocks written over and the rest kept. `
      + `To start over with a sample market of ${n(wanted)} stocks, add --replace (replace: true): the old one is removed in the same transaction`,
    flag: { field: 'replace', cli: '--replace' },
  };
}
