/**
 * "Did you mean" suggestions for unknown field and parameter names.
 */

/** Up to `limit` names from `candidates` close to `input` (edit distance, then prefix/substring matches). */
export function suggestNames(input: string, candidates: Iterable<string>, limit = 5): string[] {
  const needle = input.toLowerCase();
  const maxDistance = Math.max(2, Math.floor(needle.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const distance = editDistance(needle, name.toLowerCase(), maxDistance);
    // A prefix/substring hit (`rsi` → `rsi_14`) ranks just after close typos.
    const contains = needle.length >= 2 && name.toLowerCase().includes(needle);
    if (distance <= maxDistance) scored.push({ name, score: distance });
    else if (contains) scored.push({ name, score: maxDistance + 1 + (name.length - needle.length) / 100 });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1));
  return scored.slice(0, limit).map((s) => s.name);
}

/** Levenshtein distance, cut off at `cap + 1` to stay cheap on long candidate lists. */
export function editDistance(a: string, b: string, cap = Number.MAX_SAFE_INTEGER): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > cap) return cap + 1;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
