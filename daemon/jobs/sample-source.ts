/** Adapts the sample-market generator (loaders/) to the job processor's batch source. */
import { generateSampleMarket } from '../../loaders/sample-market.js';
import type { SampleSource } from './processors/market-processor.js';

/** The built-in sample market, in batches of about 50,000 bars (one transaction each). */
export const sampleSource: SampleSource = ({ seed, stocks, days }) => generateSampleMarket({ seed, stocks, days });
