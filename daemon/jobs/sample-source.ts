/** Adapts the sample-market generator (loaders/) to the job processor's batch source. */
import { generateSampleMarket } from '../../loaders/sample-market.js';
import type { SampleSource } from './processors/market-processor.js';

/**
 * The built-in sample market, in batches of 50 stocks (25,000 bars of 500 days): each is one
 * short transaction into the load's staged market, so other writers wait at most that long.
 * Smaller batches make the load slower, not only by their commits: every batch touches leaf
 * pages across the whole trade-date index, and each commit writes them again (20 stocks per
 * batch made the full load about 1.5 times as long).
 */
export const sampleSource: SampleSource = ({ seed, stocks, days }) => generateSampleMarket({ seed, stocks, days, chunkStocks: 50 });
