/**
 * Planning a folder load: find the data files under a directory, detect each
 * one's format and put them in an order that makes later merges correct.
 *
 * Order (rank, then trade date, then path):
 *  0 ndjson          — a full snapshot is the base everything else overlays;
 *  1 listing-csv     — stock master data first (bars and financials refer to stocks);
 *  2 fdr-desc        — descriptive fields (industry, listing date, settle month);
 *  3 ohlcv           — per-issue history, before the daily quote files so that the
 *                      official KRX quote of a day wins over a history row;
 *  4 fdr-listing / krx-quotes — by trade date ascending, so the latest day's
 *                      name, board, flags and shares end up in the stock record;
 *  5 fdr-index       — index series;
 *  6 financials-csv, 7 dart-json — statements last (they need the stocks).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { dateFromFileName } from './fields.js';
import { sniffFile } from './registry.js';
import type { LoaderFormat } from './types.js';

/** One file of a folder plan. */
export interface PlannedFile {
  path: string;
  format: LoaderFormat;
  /** From the file name, for single-day quote files; else null. */
  trade_date: string | null;
}

/** A folder plan: files in load order and files that were not recognised. */
export interface FolderPlan {
  files: PlannedFile[];
  unrecognised: string[];
}

/** Load-order rank per format (see the file comment). */
export const LOAD_ORDER: Readonly<Record<LoaderFormat, number>> = {
  ndjson: 0, 'listing-csv': 1, 'fdr-desc': 2, ohlcv: 3, 'fdr-listing': 4, 'krx-quotes': 4, 'krx-openapi': 4,
  'fdr-index': 5, 'financials-csv': 6, 'dart-json': 7,
};

const DATA_FILE = /\.(csv|json|ndjson|jsonl|txt)$/i;

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.filter((e) => !e.name.startsWith('.')).map(async (e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return listFiles(path);
    return e.isFile() && DATA_FILE.test(e.name) ? [path] : [];
  }));
  return nested.flat();
}

/** Compares two planned files by load order. */
export function compareLoadOrder(a: PlannedFile, b: PlannedFile): number {
  return LOAD_ORDER[a.format] - LOAD_ORDER[b.format]
    || (a.trade_date ?? '').localeCompare(b.trade_date ?? '')
    || a.path.localeCompare(b.path);
}

/**
 * Lists the data files under `dir` (recursively; dot-files skipped), detects
 * their formats and returns them in load order.
 * @throws the fs error when `dir` cannot be read.
 */
export async function planFolder(dir: string): Promise<FolderPlan> {
  const paths = await listFiles(dir);
  const files: PlannedFile[] = [];
  const unrecognised: string[] = [];
  for (const path of paths) {
    const format = await sniffFile(path);
    if (format === null) unrecognised.push(path);
    else {
      const quoteFile = format === 'fdr-listing' || format === 'krx-quotes';
      files.push({ path, format, trade_date: quoteFile ? dateFromFileName(path) : null });
    }
  }
  files.sort(compareLoadOrder);
  return { files, unrecognised: unrecognised.sort() };
}
