/**
 * Independent cross-sectional reference for the screening-language tests, written
 * the slow, obvious way (pairwise comparisons, pandas semantics), never sharing code with the engine.
 * Each function takes (key, value | null, group | null) triples and returns values by key.
 */

/** One observation: a key (stock code), its value (null = missing) and its group (null = none). */
export interface Obs {
  key: string;
  value: number | null;
  group?: string | null;
}

function groupsOf(obs: readonly Obs[], grouped: boolean): Map<string, { key: string; value: number }[]> {
  const out = new Map<string, { key: string; value: number }[]>();
  for (const o of obs) {
    if (o.value === null) continue;
    if (grouped && (o.group === null || o.group === undefined)) continue;
    const g = grouped ? String(o.group) : '*';
    out.set(g, [...(out.get(g) ?? []), { key: o.key, value: o.value }]);
  }
  return out;
}

function each(obs: readonly Obs[], grouped: boolean, f: (v: number, all: number[]) => number | null): Map<string, number | null> {
  const out = new Map<string, number | null>(obs.map((o) => [o.key, null]));
  for (const members of groupsOf(obs, grouped).values()) {
    const values = members.map((m) => m.value);
    for (const m of members) out.set(m.key, f(m.value, values));
  }
  return out;
}

/** SQL RANK(): 1 + number of strictly larger values (descending) or smaller (ascending). */
export function refRank(obs: readonly Obs[], grouped: boolean, ascending = false): Map<string, number | null> {
  return each(obs, grouped, (v, all) => 1 + all.filter((x) => (ascending ? x < v : x > v)).length);
}

/** pandas rank(pct=True, method="average") × 100. */
export function refPctRank(obs: readonly Obs[], grouped: boolean): Map<string, number | null> {
  return each(obs, grouped, (v, all) => {
    const below = all.filter((x) => x < v).length;
    const equal = all.filter((x) => x === v).length;
    const averageRank = below + (equal + 1) / 2;
    return (100 * averageRank) / all.length;
  });
}

/** (v − mean) / population standard deviation (scipy.stats.zscore, ddof 0); null when it is 0. */
export function refZscore(obs: readonly Obs[], grouped: boolean): Map<string, number | null> {
  return each(obs, grouped, (v, all) => {
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    const sd = Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / all.length);
    return sd === 0 ? null : (v - mean) / sd;
  });
}
