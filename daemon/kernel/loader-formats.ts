/**
 * The identifiers of the market-data file formats the loaders read: a load job's request may
 * name one (the wire contract validates it), and the loaders register one loader per format.
 */
export const LOADER_FORMATS = [
  'fdr-listing',
  'fdr-desc',
  'fdr-index',
  'krx-quotes',
  'krx-openapi',
  'ohlcv',
  'listing-csv',
  'dart-json',
  'financials-csv',
  'ndjson',
] as const;
/** One supported file format. */
export type LoaderFormat = (typeof LOADER_FORMATS)[number];
