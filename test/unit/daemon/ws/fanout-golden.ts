/**
 * The recorded fan-out scenario of the golden test (fanout-golden.test.ts): a tick sequence
 * (prices, order books, a market status, an alert) dispatched through a real hub to
 * connections subscribed by stock, market and sector, their outboxes flushed at fixed
 * points (one of them behind its high-water mark for a while, so it coalesces). The frame
 * texts were recorded from the send path before serialize-once / compress-once
 * (test/fixtures/ws/fanout-golden.json); the test replays the scenario and compares.
 */
import type { MarketEvent } from '../../../../daemon/kernel/events.js';
import { createOutbox, type Outbox, type OutboxOptions, type OutboxSink } from '../../../../daemon/ws/batching.js';
import { createHub, topicOf, userTopic, type HubMember } from '../../../../daemon/ws/hub.js';
import type { SubscriptionType } from '../../../../daemon/ws/protocol.js';

/** One connection of the scenario. */
export interface GoldenMember {
  name: string;
  subs: [SubscriptionType, string][];
  user: string | null;
  /** Flush rounds during which its socket reports a full send buffer. */
  behindRounds: number[];
}

/** The scenario's connections. */
export const GOLDEN_MEMBERS: GoldenMember[] = [
  { name: 'stocks', subs: [['stock', '005930'], ['stock', '247540']], user: null, behindRounds: [] },
  { name: 'market', subs: [['market', 'KOSPI']], user: null, behindRounds: [] },
  { name: 'sector', subs: [['sector', '반도체']], user: null, behindRounds: [] },
  { name: 'mixed', subs: [['stock', '035720'], ['sector', '2차전지'], ['market', 'KOSDAQ']], user: 'u1', behindRounds: [] },
  { name: 'slow-market', subs: [['market', 'KOSPI']], user: null, behindRounds: [2, 3, 4] },
];

const STOCKS: [string, string, 'KOSPI' | 'KOSDAQ', string | null][] = [
  ['005930', '삼성전자', 'KOSPI', '반도체'],
  ['000660', 'SK하이닉스', 'KOSPI', '반도체'],
  ['035720', '카카오', 'KOSPI', '인터넷'],
  ['373220', 'LG에너지솔루션', 'KOSPI', '2차전지'],
  ['247540', '에코프로비엠', 'KOSDAQ', '2차전지'],
  ['086520', '에코프로', 'KOSDAQ', '2차전지'],
  ['091990', '셀트리온헬스케어', 'KOSDAQ', null],
  ['042700', '한미반도체', 'KOSPI', '반도체'],
];

/** A deterministic tick sequence: `rounds` flush rounds of events (the recorded input). */
export function recordTicks(rounds: number, seed = 7): MarketEvent[][] {
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const t0 = Date.parse('2026-11-20T01:00:00.000Z');
  const out: MarketEvent[][] = [];
  for (let r = 0; r < rounds; r++) {
    const events: MarketEvent[] = [];
    const n = 1 + Math.floor(rand() * 12);
    for (let i = 0; i < n; i++) {
      const [code, name, market, sector] = STOCKS[Math.floor(rand() * STOCKS.length)]!;
      const ts = t0 + r * 30 + i;
      const price = Math.round(10_000 + rand() * 90_000);
      const prev = Math.round(price * (0.95 + rand() * 0.1));
      if (rand() < 0.15) {
        events.push({ type: 'orderbook', code, market, sector, bids: [{ price: price - 10, quantity: Math.floor(rand() * 1000) }], asks: [{ price: price + 10, quantity: Math.floor(rand() * 1000) }], ts });
      } else {
        const change = price - prev;
        events.push({
          type: 'price', code, name, market, sector, price, change, change_percent: Math.round((change / prev) * 10_000) / 100,
          volume: Math.floor(rand() * 1e7), trading_value: price * 100, open: prev, high: price + 5, low: prev - 5, prev_close: prev, ts,
        });
      }
    }
    if (r === 5) events.push({ type: 'market_status', market: 'KOSDAQ', status: 'open', ts: t0 + r * 30 + 20 });
    if (r === 7) events.push({ type: 'alert', user_id: 'u1', alert_id: 'al-1', event_id: 'f-1', code: '035720', alert_type: 'price_above', threshold: 50_000, current_price: 50_100, message: '카카오 > 50,000', ts: t0 + r * 30 + 21 });
    out.push(events);
  }
  return out;
}

/** Outbox tuning of the scenario (small frames so that some rounds split into several). */
export const GOLDEN_OPTIONS: OutboxOptions = { batching: true, highWaterBytes: 4_000, maxBehindFlushes: 10, maxQueue: 1_000, maxBatchSize: 6, maxFrameBytes: 1_500 };

/** Frame timestamp of round `r` (the sink's clock). */
export const roundClock = (r: number) => Date.parse('2026-11-20T01:00:00.000Z') + r * 30 + 29;

/** What the scenario needs from a sink besides the outbox's: whether the socket is behind. */
export type SinkFactory = (member: GoldenMember, state: { round: number }) => OutboxSink;

/** Run the scenario: one outbox per member made by `makeSink`; each round dispatches its events then flushes all. */
export function runScenario(ticks: MarketEvent[][], makeSink: SinkFactory): void {
  const hub = createHub();
  const state = { round: 0 };
  const boxes: Outbox[] = [];
  for (const m of GOLDEN_MEMBERS) {
    const box = createOutbox(makeSink(m, state), GOLDEN_OPTIONS);
    const member: HubMember = { lastDispatch: 0, hasSubscriptions: () => true, deliver: (msg) => box.push(msg) };
    hub.addMember(member);
    for (const [type, target] of m.subs) hub.join(member, topicOf(type, target));
    if (m.user) hub.join(member, userTopic(m.user));
    boxes.push(box);
  }
  ticks.forEach((events, r) => {
    state.round = r;
    events.forEach((e, i) => hub.dispatch(`${1_700_000_000_000 + r * 30 + i}-0`, e));
    for (const box of boxes) box.flush();
  });
  state.round = ticks.length;
  for (let extra = 0; extra < 3; extra++) for (const box of boxes) box.flush();
}
