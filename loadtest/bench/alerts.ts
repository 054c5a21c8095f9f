/**
 * Alert evaluation cost (ticks/s sustained with 10,000 active alerts over the
 * sample market, and the latency they add per tick), in process: the daemon's own evaluator
 * (daemon/alerts/evaluator.ts) with 10,000 active alerts of mixed types spread over every
 * stock of the bench daemon's market, fed a replayed random walk of ticks one at a time,
 * against the same replay with no alert. Storage and the bus are in-memory stand-ins
 * (a firing still goes through its record and publish steps), so the figures are
 * the evaluation itself; the end-to-end figure through POST /admin/ticks is alert-ticks.ts.
 */
import { pino } from 'pino';
import type { AlertType } from '../../daemon/kernel/alert-types.js';
import { createAlertEvaluator, type AlertEvaluator } from '../../daemon/alerts/evaluator.js';
import { loadSnapshotRows } from '../../daemon/wiring/market.js';
import { createMarketStore } from '../../daemon/wiring/store.js';
import type { PriceEvent } from '../../daemon/kernel/events.js';
import type { Market } from '../../daemon/kernel/records.js';
import { openStore, type StoreSettings } from '../../daemon/store/open.js';
import type { Alert } from '../../daemon/store/alerts-repo.js';
import { Histogram } from '../histogram.js';
import { makeRow } from '../targets.js';
import type { ReportRow } from '../types.js';

/** A stock alerts are set on, with what thresholds are set against. */
export interface AlertStock {
  code: string;
  name: string;
  market: Market;
  sector: string | null;
  close: number;
  avgVolume: number | null;
}

/** One alert of the mix (the fields POST /alerts takes). */
export interface AlertSpec {
  code: string;
  alert_type: AlertType;
  threshold: number;
  recurring: boolean;
  cooldown_s: number;
}

/** A small deterministic generator (mulberry32), so two runs replay the same ticks. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES: readonly AlertType[] = ['price_above', 'price_below', 'change_percent_above', 'change_percent_below', 'volume_above'];

/**
 * `count` alerts over `stocks` round robin, the five types in turn, thresholds 2–10 % away
 * from the close (or 3–10 points of change, 1.5–4 × the average volume), every third one
 * recurring with a 60 s cooldown: mostly quiet alerts, a few of which a day's moves fire.
 */
export function alertMix(stocks: readonly Pick<AlertStock, 'code' | 'close'>[], count: number, seed = 7): AlertSpec[] {
  const random = seededRandom(seed);
  const out: AlertSpec[] = [];
  for (let i = 0; i < count && stocks.length > 0; i++) {
    const s = stocks[i % stocks.length]!;
    const type = TYPES[i % TYPES.length]!;
    const away = 0.02 + random() * 0.08;
    const threshold =
      type === 'price_above' ? s.close * (1 + away)
      : type === 'price_below' ? s.close * (1 - away)
      : type === 'change_percent_above' ? 3 + random() * 7
      : type === 'change_percent_below' ? -(3 + random() * 7)
      : 1.5 + random() * 2.5;
    out.push({ code: s.code, alert_type: type, threshold: Math.round(threshold * 100) / 100, recurring: i % 3 === 0, cooldown_s: i % 3 === 0 ? 60 : 0 });
  }
  return out;
}

/**
 * Every stock of the bench daemon's store (sqlite data dir or PostgreSQL) with its last close and 20-day average volume.
 * @throws the driver's error when the database cannot be read
 */
export async function loadAlertStocks(store: StoreSettings): Promise<AlertStock[]> {
  const db = await openStore(store);
  try {
    const { rows } = await loadSnapshotRows(createMarketStore(db));
    return rows
      .filter((r) => typeof r.values.close === 'number' && r.values.close > 0)
      .map((r) => ({ code: r.code, name: r.name, market: r.market as Market, sector: r.sector, close: r.values.close as number, avgVolume: typeof r.values.avg_volume_20 === 'number' ? r.values.avg_volume_20 : null }));
  } finally {
    await db.close();
  }
}

/**
 * `count` ticks: stocks in random order, each price a random walk of ±0.5 % steps from its
 * close (within ±30 %), the day volume rising by about a twentieth of the average per tick.
 */
export function replayTicks(stocks: readonly AlertStock[], count: number, seed = 11): PriceEvent[] {
  const random = seededRandom(seed);
  const state = stocks.map((s) => ({ price: s.close, volume: 0 }));
  const ts = Date.now();
  const out: PriceEvent[] = [];
  for (let i = 0; i < count && stocks.length > 0; i++) {
    const k = Math.floor(random() * stocks.length);
    const s = stocks[k]!;
    const st = state[k]!;
    st.price = Math.min(s.close * 1.3, Math.max(s.close * 0.7, st.price * (1 + (random() - 0.5) * 0.01)));
    st.volume += Math.round(((s.avgVolume ?? 100_000) / 20) * random() * 2);
    const change = st.price - s.close;
    out.push({
      type: 'price', code: s.code, name: s.name, market: s.market, sector: s.sector, price: st.price, change, change_percent: (change / s.close) * 100,
      volume: st.volume, trading_value: st.volume * st.price, open: s.close, high: st.price, low: st.price, prev_close: s.close, ts: ts + i,
    });
  }
  return out;
}

async function evaluatorWith(stocks: readonly AlertStock[], specs: readonly AlertSpec[]): Promise<{ evaluator: AlertEvaluator; firings: () => number }> {
  const now = new Date().toISOString();
  const alerts: Alert[] = specs.map((a, i) => ({
    ...a, id: `bench-${i}`, user_id: `user-${i % 100}`, name: null, preset_id: null, membership: null, dwell_s: null, note: null, active: true, armed: true, fire_count: 0, last_fired_at: null, created_at: now, updated_at: now,
  }));
  const byId = new Map(alerts.map((a) => [a.id, a]));
  const averages = new Map(stocks.filter((s) => s.avgVolume !== null).map((s) => [s.code, s.avgVolume!]));
  let firings = 0;
  const evaluator = createAlertEvaluator({
    alerts: {
      listActive: async () => alerts,
      getById: async (id) => byId.get(id),
      recordFiring: async () => {
        firings++;
        return true;
      },
      rearm: async () => undefined,
    },
    publish: async () => undefined,
    averageVolumes: async (codes) => new Map(codes.filter((c) => averages.has(c)).map((c) => [c, averages.get(c)!])),
    clock: { now: () => Date.now() },
    logger: pino({ level: 'silent' }),
  });
  await evaluator.start();
  return { evaluator, firings: () => firings };
}

/** Figures of one replay. */
export interface ReplayFigures {
  ticks_per_s: number;
  /** Time of one onTick call, µs. */
  p50_us: number | null;
  p99_us: number | null;
  firings: number;
}

async function replay(stocks: readonly AlertStock[], specs: readonly AlertSpec[], ticks: readonly PriceEvent[]): Promise<ReplayFigures> {
  const { evaluator, firings } = await evaluatorWith(stocks, specs);
  const h = new Histogram();
  const t0 = performance.now();
  for (const tick of ticks) {
    const s = process.hrtime.bigint();
    await evaluator.onTick([tick]);
    h.record(Number(process.hrtime.bigint() - s)); // ns
  }
  const seconds = (performance.now() - t0) / 1000;
  const sum = h.summary(1000); // µs
  return { ticks_per_s: ticks.length / seconds, p50_us: sum.p50, p99_us: sum.p99, firings: firings() };
}

async function replayBatched(stocks: readonly AlertStock[], specs: readonly AlertSpec[], ticks: readonly PriceEvent[], batch: number): Promise<number> {
  const { evaluator } = await evaluatorWith(stocks, specs);
  const t0 = performance.now();
  for (let i = 0; i < ticks.length; i += batch) await evaluator.onTick(ticks.slice(i, i + batch));
  return ticks.length / ((performance.now() - t0) / 1000);
}

/** Figures of the in-process alert benchmark. */
export interface AlertEvaluationResult {
  alerts: number;
  stocks: number;
  ticks: number;
  with_alerts: ReplayFigures;
  without_alerts: ReplayFigures;
  batched_ticks_per_s: number;
  batch: number;
}

/** Replay `ticks` ticks without alerts and with `alerts` alerts, twice in turn (the first round warms up). */
export async function runAlertEvaluationBench(stocks: readonly AlertStock[], o: { alerts: number; ticks: number; batch?: number }): Promise<AlertEvaluationResult> {
  const specs = alertMix(stocks, o.alerts);
  const ticks = replayTicks(stocks, o.ticks);
  // Two interleaved rounds; the first warms the JIT on both paths and only the second counts.
  await replay(stocks, [], ticks);
  await replay(stocks, specs, ticks);
  const without = await replay(stocks, [], ticks);
  const withAlerts = await replay(stocks, specs, ticks);
  const batch = o.batch ?? 1000;
  return { alerts: specs.length, stocks: stocks.length, ticks: ticks.length, without_alerts: without, with_alerts: withAlerts, batched_ticks_per_s: await replayBatched(stocks, specs, ticks, batch), batch };
}

const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

/** Rows of the in-process figures (scenario `alert evaluation (in process)`). */
export function alertEvaluationRows(r: AlertEvaluationResult): ReportRow[] {
  const S = 'alert evaluation (in process)';
  return [
    makeRow(S, 'active alerts', r.alerts, '', null, { note: `${r.stocks} stocks, five types in turn, a third recurring; ${r.ticks.toLocaleString('en-US')} replayed ticks, one per onTick call` }),
    makeRow(S, 'ticks/s with alerts', r.with_alerts.ticks_per_s, 'tick/s'),
    makeRow(S, 'ticks/s without alerts', r.without_alerts.ticks_per_s, 'tick/s'),
    makeRow(S, `ticks/s with alerts, batches of ${r.batch.toLocaleString('en-US')}`, r.batched_ticks_per_s, 'tick/s'),
    makeRow(S, 'per tick p50 with alerts', r.with_alerts.p50_us, 'µs'),
    makeRow(S, 'per tick p99 with alerts', r.with_alerts.p99_us, 'µs'),
    makeRow(S, 'added per tick p50', minus(r.with_alerts.p50_us, r.without_alerts.p50_us), 'µs'),
    makeRow(S, 'added per tick p99', minus(r.with_alerts.p99_us, r.without_alerts.p99_us), 'µs'),
    makeRow(S, 'firings', r.with_alerts.firings, '', null, { note: 'recorded and published through in-memory stand-ins' }),
  ];
}
