/**
 * Screening engine time without HTTP: build the snapshot from the bench daemon's
 * database exactly as the daemon does, parse the simple and complex screens of the load
 * scenarios, and time `executeQuery` over many iterations (mean, p50 and p99 in µs; the engine's
 * target: under 2 ms, judged on the p99).
 */
import { join } from 'node:path';
import { createMarketParts, loadSnapshotRows } from '../../daemon/wiring/market.js';
import { INDICATOR_IDS } from '../../daemon/indicators/registry.js';
import { executeQuery } from '../../daemon/screening/query.js';
import { parseScreenRequest } from '../../daemon/screening/request.js';
import { buildSnapshot, type Snapshot } from '../../daemon/screening/snapshot.js';
import { openSqlite } from '../../daemon/store/sqlite.js';
import { Histogram } from '../histogram.js';
import { languageRows } from './language-timing.js';
import { complexBodies, simpleBodies } from '../scenarios/screen-bodies.js';
import { ISSUE_TARGETS, makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';

/** The daemon's snapshot, built from the bench daemon's database exactly as the daemon builds it. */
async function loadSnapshot(dataDir: string): Promise<Snapshot> {
  const db = await openSqlite(join(dataDir, 'stockscreen.db'));
  try {
    const { version, rows } = await loadSnapshotRows(createMarketParts(db));
    return buildSnapshot(rows, INDICATOR_IDS, version);
  } finally {
    await db.close();
  }
}

function time(snapshot: Snapshot, body: Record<string, unknown>, iterations: number): { h: Histogram; total: number } {
  const query = parseScreenRequest(body, new Set<string>(INDICATOR_IDS));
  let total = 0;
  for (let i = 0; i < Math.min(20, iterations); i++) total = executeQuery(snapshot, query).total; // warm the JIT
  const h = new Histogram();
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    executeQuery(snapshot, query);
    h.record(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return { h, total };
}

/** Rows of the engine timing (scenario `engine`). */
export async function engineRows(dataDir: string, iterations: number): Promise<ReportRow[]> {
  const snapshot = await loadSnapshot(dataDir);
  const rows: ReportRow[] = [makeRow('engine', 'stocks in snapshot', snapshot.size, '')];
  for (const [name, body] of [['simple', simpleBodies(false).shapeB()], ['complex', complexBodies(false).shapeB()]] as const) {
    const { h, total } = time(snapshot, body, iterations);
    const s = h.summary();
    rows.push(
      makeRow('engine', `${name} query mean`, s.mean, 'µs', null, { note: `${iterations} runs of executeQuery, ${total} matches` }),
      makeRow('engine', `${name} query p50`, s.p50, 'µs'),
      makeRow('engine', `${name} query p99`, s.p99, 'µs', ISSUE_TARGETS.engineQueryP99Us),
    );
  }
  rows.push(...languageRows(snapshot, new Set<string>(INDICATOR_IDS), iterations));
  return rows;
}
