/**
 * The loader registry: format auto-detection from a file's name and first
 * bytes, and parsing (or streaming) a file with the right loader.
 */
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dartJsonLoader } from './dart-json.js';
import { fdrDescLoader } from './fdr-desc.js';
import { fdrIndexLoader } from './fdr-index.js';
import { fdrListingLoader } from './fdr-listing.js';
import { financialsCsvLoader } from './financials-csv.js';
import { krxOpenApiLoader } from './krx-openapi.js';
import { krxQuotesLoader } from './krx-quotes.js';
import { listingCsvLoader } from './listing-csv.js';
import { ndjsonLoader, streamNdjson } from './ndjson.js';
import type { NdjsonStreamOptions } from './ndjson.js';
import { ohlcvLoader } from './ohlcv.js';
import { decodeText, firstLine } from './text.js';
import type { LoadOptions, LoadResult, Loader, LoaderFormat } from './types.js';
import { invalidRequest } from '../daemon/errors.js';

/** All loaders in detection order (the more specific header signatures first). */
export const LOADERS: readonly Loader[] = [
  dartJsonLoader, krxOpenApiLoader, ndjsonLoader, fdrListingLoader, krxQuotesLoader, fdrDescLoader, listingCsvLoader,
  fdrIndexLoader, ohlcvLoader, financialsCsvLoader,
];

/** How many leading bytes detection needs (enough for any header line). */
export const DETECT_BYTES = 8_192;

/** The loader for a format. @throws AppError INVALID_REQUEST for an unknown format name. */
export function loaderFor(format: string): Loader {
  const loader = LOADERS.find((l) => l.format === format);
  if (!loader) throw invalidRequest(`unknown format ${format}`, { format: `one of ${LOADERS.map((l) => l.format).join(', ')}` });
  return loader;
}

/**
 * The format of a file from its name and first bytes (any length; a cut-off
 * multi-byte character at the end is fine), or null when nothing matches.
 */
export function detectFormat(fileName: string, firstBytes: Uint8Array | string): LoaderFormat | null {
  const { text } = decodeText(firstBytes, true);
  const head = text.trimStart().startsWith('{') || text.trimStart().startsWith('[') ? text : firstLine(text);
  return LOADERS.find((l) => l.detect(fileName, head))?.format ?? null;
}

/**
 * Decodes, detects (unless `format` is given) and parses file contents.
 * @throws AppError INVALID_REQUEST when the format is unknown or the file is refused.
 */
export function parseFile(content: Uint8Array | string, fileName: string, options: LoadOptions = {}, format?: LoaderFormat): LoadResult {
  const { text } = decodeText(content);
  const kind = format ?? detectFormat(fileName, text.slice(0, DETECT_BYTES));
  if (kind === null) throw invalidRequest(`${fileName}: unrecognised file format`, { file: fileName, format: null });
  return loaderFor(kind).parse(text, fileName, options);
}

/**
 * Reads and parses a whole file (suitable up to a few hundred MB; use
 * `loadFileChunks` for big NDJSON files).
 * @throws AppError INVALID_REQUEST as `parseFile`; fs errors as thrown by node.
 */
export async function loadFile(path: string, options: LoadOptions = {}, format?: LoaderFormat): Promise<LoadResult> {
  return parseFile(await readFile(path), path, options, format);
}

/**
 * Loads a file as a sequence of results: NDJSON is streamed in chunks of
 * `chunkRows` lines; every other format yields one result.
 * @throws AppError INVALID_REQUEST as `parseFile` / `streamNdjson`.
 */
export async function* loadFileChunks(path: string, options: NdjsonStreamOptions = {}, format?: LoaderFormat): AsyncGenerator<LoadResult> {
  const kind = format ?? (await sniffFile(path));
  if (kind === 'ndjson') {
    yield* streamNdjson(createReadStream(path, { encoding: 'utf8' }), path, options);
    return;
  }
  yield await loadFile(path, options, kind ?? undefined);
}

/** Detects the format of a file on disk from its first bytes. */
export async function sniffFile(path: string): Promise<LoaderFormat | null> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(DETECT_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, DETECT_BYTES, 0);
    return detectFormat(path, buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
