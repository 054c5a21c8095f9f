/**
 * The KRX market clock: regular-session states in Korea time
 * (Asia/Seoul, UTC+9, no daylight saving), per market, with one timer per transition.
 *
 * Sessions on a trading day: pre_open 08:30–09:00 (the opening single-price auction's
 * order book), open 09:00–15:20, closing_auction 15:20–15:30, closed otherwise. On the
 * year's first trading day KRX opens one hour late (10:00) and the pre-open moves with
 * it (09:30–10:00); the close is unchanged. Weekends and KRX holidays are closed
 * (krx-calendar). The after-hours sessions (시간외) are reported as closed.
 *
 * Besides the KRX status, `session()` names the trading session a quote belongs to, with
 * Nextrade's (NXT) pre-market 08:00–08:50 and after-market 15:30–20:00 beside KRX's regular
 * session: a real feed keeps pricing in them and marks its quotes; the simulator ignores them.
 */
import type { Clock } from '../infra/clock.js';
import type { MarketStatus, MarketStatusEvent } from '../kernel/events.js';
import { isFirstTradingDayOfYear, isTradingDay, nextTradingDay } from '../kernel/krx-calendar.js';
import { MARKETS } from '../kernel/records.js';

/** Korea Standard Time offset from UTC (no DST since 1988). */
export const KST_OFFSET_MS = 9 * 3_600_000;

const MINUTE = 60_000;

/** Session boundaries in minutes after midnight KST. */
export const KRX_SESSION = {
  preOpenLeadMinutes: 30,
  open: 9 * 60,
  firstDayOpen: 10 * 60,
  closingAuction: 15 * 60 + 20,
  close: 15 * 60 + 30,
} as const;

/** Nextrade's extended sessions, minutes after midnight KST (an alternative trading system since 2025-03). */
export const NXT_SESSION = {
  preMarketOpen: 8 * 60,
  preMarketClose: 8 * 60 + 50,
  afterMarketOpen: 15 * 60 + 30,
  afterMarketClose: 20 * 60,
} as const;

/** The trading session a quote belongs to: NXT pre-market, the regular KRX session, NXT after-market. */
export type TradingSession = 'pre_market' | 'regular' | 'after_market';

/**
 * The session trading at an instant (ms epoch), or null when nothing trades (nights,
 * weekends, holidays, and the gap 08:50–09:00 outside the regular session).
 */
export function sessionAt(ms: number): TradingSession | null {
  const date = kstDate(ms);
  if (!isTradingDay(date)) return null;
  if (isTradingStatus(statusAt(ms))) return 'regular';
  const minute = Math.floor(((ms + KST_OFFSET_MS) % 86_400_000) / MINUTE);
  if (minute >= NXT_SESSION.preMarketOpen && minute < NXT_SESSION.preMarketClose) return 'pre_market';
  if (minute >= NXT_SESSION.afterMarketOpen && minute < NXT_SESSION.afterMarketClose) return 'after_market';
  return null;
}

/** How the clock decides the status: real KRX sessions, or a fixed state for demos and tests. */
export type MarketClockMode = 'krx' | 'always-open' | 'always-closed';

/** The next change of status. */
export interface Transition {
  /** ms epoch at which `status` starts. */
  at: number;
  status: MarketStatus;
}

/** The KST calendar date ('YYYY-MM-DD') of an instant. */
export function kstDate(ms: number): string {
  return new Date(ms + KST_OFFSET_MS).toISOString().slice(0, 10);
}

/** Session boundaries (ms epoch) of one KST date, in order of the statuses they start. */
function sessionBoundaries(date: string): Transition[] {
  const midnight = Date.parse(`${date}T00:00:00Z`) - KST_OFFSET_MS;
  const open = isFirstTradingDayOfYear(date) ? KRX_SESSION.firstDayOpen : KRX_SESSION.open;
  return [
    { at: midnight + (open - KRX_SESSION.preOpenLeadMinutes) * MINUTE, status: 'pre_open' },
    { at: midnight + open * MINUTE, status: 'open' },
    { at: midnight + KRX_SESSION.closingAuction * MINUTE, status: 'closing_auction' },
    { at: midnight + KRX_SESSION.close * MINUTE, status: 'closed' },
  ];
}

/** KRX session status at an instant (ms epoch). Boundaries belong to the session they start. */
export function statusAt(ms: number): MarketStatus {
  const date = kstDate(ms);
  if (!isTradingDay(date)) return 'closed';
  let status: MarketStatus = 'closed';
  for (const b of sessionBoundaries(date)) if (ms >= b.at) status = b.status;
  return status;
}

/** The first status change strictly after `ms` (skips weekends and holidays). */
export function nextTransition(ms: number): Transition {
  let date = kstDate(ms);
  if (isTradingDay(date)) {
    const next = sessionBoundaries(date).find((b) => b.at > ms);
    if (next) return next;
  }
  date = nextTradingDay(date);
  return sessionBoundaries(date)[0]!;
}

/** True while trades happen (regular session or closing auction). */
export function isTradingStatus(status: MarketStatus): boolean {
  return status === 'open' || status === 'closing_auction';
}

/** Timer functions, injectable so tests can fire transitions without waiting. */
export interface TimerApi {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: TimerApi = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Options of the market clock. */
export interface MarketClockOptions {
  mode: MarketClockMode;
  clock: Clock;
  /** Called with one `market_status` event per market on each transition. */
  onTransition?(events: MarketStatusEvent[]): void;
  timers?: TimerApi;
  /** Longest single wait; the clock re-checks after it (guards against wall-clock jumps). Default 1 h. */
  maxDelayMs?: number;
}

/** A running market clock. */
export interface MarketClock {
  readonly mode: MarketClockMode;
  /** Status now (the same for KOSPI and KOSDAQ). */
  status(): MarketStatus;
  /** True while the market trades (open or closing auction). */
  isTrading(): boolean;
  /** The session trading now, NXT's pre- and after-market included; null when none (fixed modes: regular or null). */
  session(): TradingSession | null;
  /** One `market_status` event per market for the current status (for snapshots). */
  statusEvents(): MarketStatusEvent[];
  /** The next transition, or null in the fixed modes. */
  next(): Transition | null;
  /** Schedule the first transition timer (idempotent). */
  start(): void;
  /** Cancel the timer (idempotent). */
  stop(): void;
  /** Also call `listener` with the `market_status` events of each transition (parts built after the clock). */
  onTransition(listener: (events: MarketStatusEvent[]) => void): void;
}

/** Create the market clock; nothing is scheduled until start(). */
export function createMarketClock(options: MarketClockOptions): MarketClock {
  const { mode, clock } = options;
  const timers = options.timers ?? realTimers;
  const maxDelay = options.maxDelayMs ?? 3_600_000;
  let handle: unknown;
  let running = false;
  let last: MarketStatus | undefined;
  const listeners: ((events: MarketStatusEvent[]) => void)[] = [];
  if (options.onTransition) listeners.push(options.onTransition);

  const status = (): MarketStatus => (mode === 'always-open' ? 'open' : mode === 'always-closed' ? 'closed' : statusAt(clock.now()));
  const events = (s: MarketStatus, ts: number): MarketStatusEvent[] => MARKETS.map((market) => ({ type: 'market_status', market, status: s, ts }));

  function schedule(): void {
    const now = clock.now();
    const delay = Math.min(Math.max(nextTransition(now).at - now, 0), maxDelay);
    handle = timers.setTimeout(fire, delay);
  }

  function fire(): void {
    handle = undefined;
    if (!running) return;
    const now = clock.now();
    const current = statusAt(now);
    // A timer may wake early (maxDelay cap, clock skew): only a real change is announced.
    if (current !== last) {
      last = current;
      const announced = events(current, now);
      for (const listener of listeners) {
        try {
          listener(announced);
        } catch {
          // A listener's failure must not stop the clock.
        }
      }
    }
    schedule();
  }

  return {
    mode,
    status,
    isTrading: () => isTradingStatus(status()),
    session: () => (mode === 'always-open' ? 'regular' : mode === 'always-closed' ? null : sessionAt(clock.now())),
    statusEvents: () => events(status(), clock.now()),
    next: () => (mode === 'krx' ? nextTransition(clock.now()) : null),
    start() {
      if (running) return;
      running = true;
      if (mode !== 'krx') return;
      last = statusAt(clock.now());
      schedule();
    },
    onTransition(listener) {
      listeners.push(listener);
    },
    stop() {
      running = false;
      if (handle !== undefined) timers.clearTimeout(handle);
      handle = undefined;
    },
  };
}
