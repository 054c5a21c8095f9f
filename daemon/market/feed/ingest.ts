/**
 * Ingest of a real feed's ticks: the wire schema
 * shared by `POST /admin/ticks` and the `ticks:in` Redis stream, and `applyTicks`, which
 * checks each tick against the market rules and turns it into feed events. Pure: the
 * caller supplies the stock lookup, the current quotes and the time.
 *
 * Rules, each a 400 naming the tick (`price`, or `ticks[3].price` in a batch):
 * - the code is a known stock;
 * - the price is on the KRX tick grid — off-grid prices are rejected, not rounded, because
 *   a real feed never sends one and rounding would hide a broken bridge;
 * - the price is inside the day's ±30% limit of the previous close;
 * - `volume` is the day's cumulative volume and never decreases within a (Korea-time) day;
 * - an explicit `ts` is not in the future (60 s of clock skew allowed) nor older than the
 *   stock's last accepted tick of the day;
 * - order-book levels are on the grid, inside the limits, bids descending, asks ascending,
 *   best bid below best ask.
 * A batch is all-or-nothing: one bad tick rejects it, with every problem listed.
 */
import { z } from 'zod';
import { invalidRequest } from '../../errors.js';
import type { MarketEvent, OrderBookEvent, OrderBookLevel, PriceEvent } from '../../kernel/events.js';
import { kstDate } from '../market-clock.js';
import { stockCode } from '../../contract/fields.js';
import { isOnTick, priceLimits, roundToTick, tickSize, type PriceLimits } from '../../kernel/tick-size.js';
import type { FeedStock, StockLookup } from './types.js';

/** Most ticks one request or stream entry may carry. */
export const MAX_TICKS_PER_BATCH = 1000;
/** Allowed clock skew of a tick's own timestamp. */
export const MAX_FUTURE_SKEW_MS = 60_000;

const levelSchema = z
  .object({
    price: z.number().positive(),
    quantity: z.number().int().min(0),
  })
  .strict();

const tickFields = {
  code: stockCode(),
  price: z.number().positive().max(1e9).describe('Trade price (KRW), on the KRX tick grid'),
  volume: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe("The day's cumulative volume (shares)"),
  ts: z
    .union([z.number().int().positive(), z.iso.datetime({ offset: true }).max(35)])
    .optional()
    .describe('Trade time: ms since the epoch or ISO 8601 (default: when received)'),
  bids: z.array(levelSchema).max(10).optional().describe('Order book bids, best (highest) first'),
  asks: z.array(levelSchema).max(10).optional().describe('Order book asks, best (lowest) first'),
};
const SINGLE_KEYS = Object.keys(tickFields) as (keyof typeof tickFields)[];

/** One tick of a real feed. */
export const tickSchema = z.object(tickFields).strict().meta({ id: 'Tick' });

/**
 * Body of POST /admin/ticks and of a `ticks:in` stream entry: one tick (its fields at the
 * top level) or a batch `{ticks: [...]}`. One object schema rather than a union, so that
 * every problem keeps its own path (`price`, `ticks[3].price`) instead of "invalid input".
 */
export const tickBodySchema = z
  .object({ ticks: z.array(tickSchema).min(1).max(MAX_TICKS_PER_BATCH).optional().describe(`A batch of up to ${MAX_TICKS_PER_BATCH} ticks`), ...z.object(tickFields).partial().shape })
  .strict()
  .superRefine((body, ctx) => {
    if (body.ticks) {
      for (const k of SINGLE_KEYS) if (body[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'not allowed together with ticks' });
      return;
    }
    for (const k of ['code', 'price', 'volume'] as const) if (body[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'Required' });
  })
  .describe('One tick {code, price, volume, ts?, bids?, asks?} or a batch {ticks: [...]}');

/** A validated tick (schema level). */
export type TickInput = z.output<typeof tickSchema>;
/** A validated request body. */
export type TickBody = z.output<typeof tickBodySchema>;

/** The ticks of a parsed body, and whether it was a batch (for the field names of errors). */
export function ticksOf(body: TickBody): { ticks: TickInput[]; batch: boolean } {
  if (body.ticks) return { ticks: body.ticks, batch: true };
  const { ticks: _none, code, price, volume, ...rest } = body;
  // The schema's refinement guarantees the three required fields of a single tick.
  return { ticks: [{ code: code!, price: price!, volume: volume!, ...rest }], batch: false };
}

/** What `applyTicks` needs besides the ticks. */
export interface IngestContext {
  lookup: StockLookup;
  /** The stock's live quote, if any (from the quote store). */
  current(code: string): PriceEvent | null;
  now: number;
}

const won = (n: number): string => n.toLocaleString('en-US');

function levelProblems(levels: OrderBookLevel[] | undefined, side: 'bids' | 'asks', limits: PriceLimits, p: string, out: Record<string, string>): void {
  levels?.forEach((l, j) => {
    const key = `${p}${side}[${j}].price`;
    if (!isOnTick(l.price)) out[key] = `${won(l.price)} is not on the KRX tick grid`;
    else if (l.price > limits.upper || l.price < limits.lower) out[key] = `outside the daily limit ${won(limits.lower)}–${won(limits.upper)}`;
    else if (j > 0 && (side === 'bids' ? l.price >= levels[j - 1]!.price : l.price <= levels[j - 1]!.price)) {
      out[key] = side === 'bids' ? 'bids must be in strictly descending price order' : 'asks must be in strictly ascending price order';
    }
  });
}

/** The state a tick is checked against: the stock's quote of the same day, if any. */
interface TickBase {
  prev: PriceEvent | null;
  prevClose: number;
  limits: PriceLimits;
  ts: number;
  explicitTs: number | undefined;
}

/** Problems of one tick against the market rules (empty when it is valid). */
function tickProblems(tick: TickInput, base: TickBase, now: number, p: string): Record<string, string> {
  const { prev, limits, explicitTs } = base;
  const problems: Record<string, string> = {};
  if (!isOnTick(tick.price)) {
    const down = roundToTick(tick.price, 'down');
    problems[`${p}price`] = `${won(tick.price)} is not on the KRX tick grid (tick ${won(tickSize(tick.price))} won here; nearest valid prices ${won(down)} and ${won(down + tickSize(tick.price))})`;
  } else if (tick.price > limits.upper || tick.price < limits.lower) {
    problems[`${p}price`] = `outside the daily limit ${won(limits.lower)}–${won(limits.upper)} (±30% of the previous close ${won(base.prevClose)})`;
  }
  if (prev && tick.volume < prev.volume) problems[`${p}volume`] = `the day's cumulative volume must not decrease (last accepted ${won(prev.volume)})`;
  if (explicitTs !== undefined && explicitTs > now + MAX_FUTURE_SKEW_MS) problems[`${p}ts`] = 'more than 60 s in the future';
  else if (explicitTs !== undefined && prev && explicitTs < prev.ts) problems[`${p}ts`] = `older than the last accepted tick of ${tick.code} (${new Date(prev.ts).toISOString()})`;
  levelProblems(tick.bids, 'bids', limits, p, problems);
  levelProblems(tick.asks, 'asks', limits, p, problems);
  const bestBid = tick.bids?.[0]?.price;
  const bestAsk = tick.asks?.[0]?.price;
  if (bestBid !== undefined && bestAsk !== undefined && bestBid >= bestAsk) problems[`${p}asks[0].price`] ??= 'the best ask must be above the best bid';
  return problems;
}

/** The price event of a valid tick, continuing the day of `base.prev` when there is one. */
function tickEvent(tick: TickInput, stock: FeedStock, base: TickBase): PriceEvent {
  const { prev, prevClose } = base;
  const change = tick.price - prevClose;
  return {
    type: 'price', code: stock.code, name: stock.name, market: stock.market, sector: stock.sector,
    price: tick.price, change, change_percent: Math.round((change / prevClose) * 10_000) / 100, volume: tick.volume,
    // A feed that sends cumulative volume only: the new shares are valued at this tick's price.
    trading_value: prev ? prev.trading_value + (tick.volume - prev.volume) * tick.price : tick.volume * tick.price,
    open: prev ? prev.open : tick.price,
    high: prev ? Math.max(prev.high, tick.price) : tick.price,
    low: prev ? Math.min(prev.low, tick.price) : tick.price,
    prev_close: prevClose, ts: base.ts,
  };
}

/**
 * Validate ticks in order and build their events (a price event each, plus an order-book
 * event when the tick carries bids or asks). Later ticks of a stock build on earlier ones.
 * @throws AppError INVALID_REQUEST listing every problem, keyed by tick field
 */
export function applyTicks(ticks: readonly TickInput[], ctx: IngestContext, batch = ticks.length > 1): MarketEvent[] {
  const details: Record<string, string> = {};
  const work = new Map<string, PriceEvent>();
  const events: MarketEvent[] = [];
  ticks.forEach((tick, i) => {
    const p = batch ? `ticks[${i}].` : '';
    const stock = ctx.lookup(tick.code);
    if (!stock) {
      details[`${p}code`] = `unknown stock code ${tick.code}`;
      return;
    }
    const explicitTs = tick.ts === undefined ? undefined : typeof tick.ts === 'number' ? tick.ts : Date.parse(tick.ts);
    const ts = explicitTs ?? ctx.now;
    const last = work.get(tick.code) ?? ctx.current(tick.code);
    // A quote of an earlier Korea-time day does not carry over: the day starts from the loaded close.
    const prev = last && kstDate(last.ts) === kstDate(ts) ? last : null;
    const prevClose = prev ? prev.prev_close : stock.prev_close;
    const base: TickBase = { prev, prevClose, limits: priceLimits(prevClose), ts, explicitTs };
    const problems = tickProblems(tick, base, ctx.now, p);
    if (Object.keys(problems).length > 0) {
      Object.assign(details, problems);
      return;
    }
    const event = tickEvent(tick, stock, base);
    work.set(tick.code, event);
    events.push(event);
    if (tick.bids || tick.asks) {
      const book: OrderBookEvent = { type: 'orderbook', code: stock.code, market: stock.market, sector: stock.sector, bids: tick.bids ?? [], asks: tick.asks ?? [], ts };
      events.push(book);
    }
  });
  const bad = Object.keys(details).length;
  if (bad > 0) throw invalidRequest(batch ? `Tick batch rejected: ${bad} problem(s); nothing was applied` : 'Tick rejected', details);
  return events;
}

/**
 * The body of a `ticks:in` stream entry. Field formats (XADD <prefix>ticks:in * …):
 * - `tick` (or `json`) = one tick or a batch as JSON, the same body as POST /admin/ticks;
 * - or flat fields `code`, `price`, `volume` and optionally `ts` (ms epoch), e.g.
 *   `XADD stockscreen:ticks:in * code 005930 price 71500 volume 1234567`.
 * @throws SyntaxError when a JSON field is not valid JSON
 */
export function streamEntryBody(fields: readonly string[]): unknown {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  const json = map.get('tick') ?? map.get('json');
  if (json !== undefined) return JSON.parse(json);
  const num = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : Number(v));
  const body: Record<string, unknown> = { code: map.get('code'), price: num(map.get('price')), volume: num(map.get('volume')) };
  const ts = num(map.get('ts'));
  if (ts !== undefined) body.ts = ts;
  return body;
}
