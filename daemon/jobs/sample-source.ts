/** Adapts the sample-market generator (loaders/) to the job processor's batch source. */
import { generateSampleMarket } from '../../loaders/sample-market.js';
import type { SampleSource } from './processors/market-processor.js';

/**
 * The built-in sample market, in batches of 10 stocks (5,000 bars of 500 days). Generating a batch
 * runs on the event loop in one go (50 stocks held it ~70 ms, 10 ~15 ms); how much a transaction
 * writes is decided by the staged market's pace (each piece ~0.1 s), not by these batches.
 */
export const sampleSource: SampleSource = ({ seed, stocks, days }) => generateSampleMarket({ seed, stocks, days, chunkStocks: 10 });
