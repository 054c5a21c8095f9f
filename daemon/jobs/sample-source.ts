/** Adapts the sample-market generator (loaders/) to the job processor's batch source. */
import { generateSampleMarket } from '../../loaders/sample-market.js';
import type { SampleSource } from './processors/market-processor.js';

/**
 * The built-in sample market, in batches of 20 stocks (10,000 bars of 500 days): each is one
 * short transaction into the load's staged market, so other writers wait at most that long.
 */
export const sampleSource: SampleSource = ({ seed, stocks, days }) => generateSampleMarket({ seed, stocks, days, chunkStocks: 20 });
