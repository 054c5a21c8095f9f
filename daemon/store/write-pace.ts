/**
 * Sizes the pieces of a long write (a load into a staged market) by time rather than by rows: each
 * piece is one transaction, and on sqlite a transaction holds the database's only writer, so every
 * other write of the process (a login, a preset save) queues behind at most one piece. The rows
 * per piece follow how long the last piece took: a busy machine or a slower table gets smaller
 * pieces, a quiet one larger pieces (fewer commits, a faster load).
 */

/** How long one piece should hold the writer (ms): a write queued behind it waits about that long. */
export const PIECE_TARGET_MS = 50;

/** Options of createWritePace. */
export interface WritePaceOptions {
  /** Rows of the first piece, before any has been timed. */
  initial: number;
  /** Fewest rows per piece (progress however slow the machine). */
  min: number;
  /** Most rows per piece. */
  max: number;
  /** Time each piece should take (ms); default PIECE_TARGET_MS. */
  targetMs?: number;
}

/** The running size of a paced write. */
export interface WritePace {
  /** Rows the next piece should carry. */
  size(): number;
  /** A piece of `rows` rows held the writer `ms` milliseconds. */
  took(rows: number, ms: number): void;
}

/** Create a pace starting at `initial` rows per piece. */
export function createWritePace(options: WritePaceOptions): WritePace {
  const target = options.targetMs ?? PIECE_TARGET_MS;
  let rows = options.initial;
  return {
    size: () => rows,
    took(done, ms) {
      if (done <= 0) return;
      // Rows this piece would have needed to take the target time, moved at most 2× per piece:
      // one piece slowed by a checkpoint or a busy core must not shrink or grow the next wildly.
      const ideal = (done * target) / Math.max(ms, 1);
      rows = Math.round(Math.min(options.max, Math.max(options.min, rows / 2, Math.min(rows * 2, ideal))));
    },
  };
}
