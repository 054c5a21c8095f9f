/**
 * The gateway's Universe over the screening snapshot: which stocks, sectors and markets
 * exist, each stock's market, and the member stocks of a market or sector. Member lists
 * are built once per snapshot version (the snapshot object is immutable and swapped
 * whole when indicators are recomputed).
 */
import { MARKETS } from '../kernel/records.js';
import type { Snapshot } from '../screening/engine/snapshot.js';
import type { Universe } from './subscriptions.js';

interface Members {
  market: Map<string, string[]>;
  sector: Map<string, string[]>;
}

function buildMembers(s: Snapshot): Members {
  const market = new Map<string, string[]>();
  const sector = new Map<string, string[]>();
  const push = (map: Map<string, string[]>, key: string, code: string) => {
    const list = map.get(key);
    if (list) list.push(code);
    else map.set(key, [code]);
  };
  for (let i = 0; i < s.size; i++) {
    const code = s.codes[i]!;
    const m = MARKETS[s.market[i]!];
    if (m) push(market, m, code);
    const sectorId = s.sector.ids[i]!;
    if (sectorId > 0) push(sector, s.sector.dict[sectorId - 1]!, code);
  }
  return { market, sector };
}

/** A Universe reading the current snapshot on every call. */
export function createSnapshotUniverse(current: () => Snapshot): Universe {
  const cache = new WeakMap<Snapshot, Members>();
  const members = (s: Snapshot): Members => {
    let m = cache.get(s);
    if (!m) cache.set(s, (m = buildMembers(s)));
    return m;
  };
  return {
    markets: MARKETS,
    hasStock: (code) => current().rowByCode.has(code),
    hasSector: (name) => current().sector.dict.includes(name),
    marketOf(code) {
      const s = current();
      const row = s.rowByCode.get(code);
      return row === undefined ? undefined : MARKETS[s.market[row]!];
    },
    members: (type, target) => members(current())[type].get(target) ?? [],
  };
}
