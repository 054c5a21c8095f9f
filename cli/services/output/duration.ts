/**
 * Durations on the command line (`--duration 10s`, `--interval 500ms`, `--cooldown 10m`):
 * a number with a unit (ms, s, m, h), several parts in a row (`1m30s`), or a bare
 * number of seconds. Pure.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
const BARE = /^\d+(?:\.\d+)?$/;

/**
 * Parse a duration into whole milliseconds.
 * @throws Error naming the accepted forms when `text` is not a duration
 */
export function parseDuration(text: string): number {
  const value = text.trim();
  if (BARE.test(value)) return Math.round(Number(value) * 1000);
  let total = 0;
  let end = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(value); m; m = PART.exec(value)) {
    total += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
    end = PART.lastIndex;
  }
  if (value === '' || end !== value.length) {
    throw new Error(`"${text}" is not a duration (use e.g. 500ms, 10s, 1m30s, 2h, or seconds)`);
  }
  return Math.round(total);
}

/** A duration as the largest fitting units, e.g. 90_000 → "1m30s", 1500 → "1.5s", 250 → "250ms". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const totalS = Math.round(ms / 1000);
  const h = Math.floor(totalS / 3600);
  const m = Math.floor((totalS % 3600) / 60);
  const s = totalS % 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s ? `${s}s` : ''].join('');
}
